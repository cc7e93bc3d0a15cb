// The result tabs (WAI-ARIA tabs pattern): click or arrow keys / Home / End to switch; only the selected
// tab is in the Tab order (roving tabindex), and each panel is labelled by its tab.
export class Tabs {
  constructor(list, { onSelect } = {}) {
    this.list = list;
    this.onSelect = onSelect;
    this.buttons = [...list.querySelectorAll('[role=tab]')];
    this.current = this.buttons.find((b) => b.getAttribute('aria-selected') === 'true')?.dataset.tab || this.buttons[0].dataset.tab;
    for (const b of this.buttons) {
      b.tabIndex = b.dataset.tab === this.current ? 0 : -1;
      b.addEventListener('click', () => this.select(b.dataset.tab));
    }
    list.addEventListener('keydown', (e) => {
      const i = this.buttons.indexOf(document.activeElement);
      if (i < 0) return;
      const n = this.buttons.length;
      const to = { ArrowRight: (i + 1) % n, ArrowLeft: (i - 1 + n) % n, Home: 0, End: n - 1 }[e.key];
      if (to === undefined) return;
      e.preventDefault();
      this.select(this.buttons[to].dataset.tab);
      this.buttons[to].focus();
    });
  }

  select(name) {
    if (!this.buttons.some((b) => b.dataset.tab === name)) return;
    this.current = name;
    for (const b of this.buttons) {
      const on = b.dataset.tab === name;
      b.setAttribute('aria-selected', String(on));
      b.tabIndex = on ? 0 : -1;
    }
    for (const p of document.querySelectorAll('[role=tabpanel]')) p.hidden = p.id !== `tab-${name}`;
    this.onSelect?.(name);
  }
}
