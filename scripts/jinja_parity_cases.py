#!/usr/bin/env python3
"""The minimised reproductions of every difference class the differential fuzzer (examples/jinja_diff) found
and we fixed, rendered by Python Jinja2 in transformers' environment (scripts/zoo_goldens.py). Writes
tests/fixtures/jinja_parity.json, which tests/jinja_parity.rs holds our renderer to:

    python3 scripts/jinja_parity_cases.py > tests/fixtures/jinja_parity.json
"""
import json
import os
import sys
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from zoo_goldens import environment
CASES = [
 ("loop control inside with/set/filter blocks (minijinja panicked)", "{%for m in [1,2]%}{%with w=1%}{%continue%}{%endwith%}{%set b%}{{m}}{%break%}{%endset%}{%endfor%}x", {}),
 ("string literal escapes: line continuation, \\x \\u \\U octal, unknown escapes, \\é", "{{ 'a\\\nb' }}|{{ \"\\x41\\u00e9\\U0001F600\\101\\q\" }}|{{ 'é\\é' }}", {}),
 ("an iterator is consumed by iterating", "{% set g = [1, 2]|map('string') %}{{ g|list }}{{ g|list }}|{% set h = l|select %}{{ h|first }}{{ h|list }}", {"l": [1, 2, 3]}),
 ("an iterator has no items by index, no last item, and prints as a generator", "{{ ([1]|map('string'))[0] }}|{{ [1]|select }}", {}),
 ("an iterator's last item raises", "{{ [1, 2]|map('string')|last }}", {}),
 ("map/select of a falsy value are empty; of a non-iterable raise when iterated", "{{ (0|select)|list }}{{ (none|map('x'))|list }}", {}),
 ("", "{{ (1|select)|list }}", {}),
 ("loop.last over an iterator (|reverse) and over a string", "{% for m in l|reverse %}{{ loop.last }}{% endfor %}|{% for c in 'ab' %}{{ loop.last }}{{ loop.length }}{% endfor %}", {"l": [1, 2]}),
 ("tuples print as tuples; dictsort and items give tuples; Undefined prints inside containers", "{{ (1,) }}{{ {'a': 1}|dictsort }}{{ {'a': 1}|items|list }}{{ [missing] }}", {}),
 ("ordering across types raises", "{{ 1 < 'a' }}", {}),
 ("", "{{ none < 1 }}", {}),
 ("", "{{ missing > 1 }}", {}),
 ("", "{{ 1 in 'abc' }}", {}),
 ("", "{{ l in {} }}", {"l": []}),
 ("ordering within types, and `in`", "{{ 'ab' < 'b' }}{{ [1, 2] < [1, 3] }}{{ 1 < 2.5 }}{{ 'a' in 'cat' }}{{ 'a' not in {'a': 1} }}{{ 1 in missing }}", {}),
 ("tests as Jinja2's", "{{ {} is sequence }}{{ 'a' is sequence }}{{ {'a': 1} is lower }}{{ 3.0 is odd }}{{ l is filter }}{{ range is callable }}", {"l": "upper"}),
 ("", "{{ missing is odd }}", {}),
 ("", "{{ missing is lt 3 }}", {}),
 ("filters minijinja lacks", "{{ 'hello'|center(9) }}|{{ 'a b_c'|wordcount }}|{{ 'hello world foo'|truncate(9) }}|{{ 1000|filesizeformat }}|{{ '<b>x</b>'|striptags }}|{{ 'a'|pprint }}|{{ true|round }}{{ false|abs }}{{ 1.25|round(1, 'ceil') }}", {}),
 ("a filter Jinja2 lacks fails to compile outside an if (even in a branch never taken)", "{% for t in [1] %}{% else %}{{ d|bool }}{% endfor %}", {}),
 ("", "{% if false %}{{ x|bool }}{% endif %}ok", {}),
 ("sum of strings, int/float of Undefined raise", "{{ ['a']|sum(start='') }}", {}),
 ("", "{{ missing|int }}", {}),
 ("str and list methods", "{{ 'a,b,c'.rsplit(',', 1) }}{{ 'abc'.index('b') }}{{ [1, 2].index(2) }}{{ 'AbC'.swapcase() }}{{ 'ab'.center(6, '*') }}{{ '5'.zfill(3) }}{{ '<x>'.removeprefix('<') }}{{ ' a  b '.split(maxsplit=1) }}{{ '[INST] x'.title() }}{{ 'a b'.partition(' ') }}", {}),
 ("", "{{ 'ab'.split('') }}", {}),
 ("", "{{ ''.join(l) }}", {"l": [{}]}),
 ("printf formatting", "{{ '%.2f|%5s|%r|%x|%c|%e|%g' % (1.234, 'a', 'b', 255, 65, 1234.5, 0.00001) }}|{{ '%d' % 3.7 }}|{{ '%(a)s' % {'a': 1} }}|{{ '' % l }}|{{ '%s-%s'|format(1, 'b') }}", {"l": [1]}),
 ("", "{{ '' % (1,) }}", {}),
 ("float modulo", "{{ f % 2.0 }}|{{ -7.5 % 2 }}|{{ true % 2 }}", {"f": 2.0}),
 ("strftime_now of the naive clock", "{{ strftime_now('%Z%z|%U %W %G %V|%c|%x %X|%k %l') }}", {}),
 ("for-else runs when no iteration finished its body", "{% for m in [1] %}{% continue %}{% else %}A{% endfor %}{% for m in [1] %}{% break %}{% else %}B{% endfor %}{% for m in [1] %}x{% else %}C{% endfor %}", {}),
 ("set and filter blocks scope their assignments", "{% filter trim %}{% set v = 0 %}{% endfilter %}[{{ v }}]{% set ns = namespace(a=1) %}{% set b %}{% set ns.a = 2 %}{% set z = 3 %}{% endset %}{{ ns.a }}[{{ z }}]", {}),
 ("transformers' tojson takes ensure_ascii first", "{{ {'a': 'é'}|tojson(2) }}{{ [1]|tojson(indent=1) }}", {}),
 ("repr escapes what Python cannot print", "{{ ['\\v\\u00a0\\u200b\\x7f'] }}", {}),
 ("dict(Undefined) raises; d.get(k, default) gives the default as it is", "{{ {'a': 1}.get('k', (1 if false)) }}|{{ dict(a=1) }}", {}),
 ("", "{{ dict(missing) }}", {}),
 ("truncate: lengths asserted first; anything short enough as it is; a Markup escapes end", "{{ ((l|safe)|truncate(3, false, \"'\")) }}|{{ ()|truncate(255, '') }}|{{ (missing|truncate(2, false, '')) is defined }}", {"l": [{"a": 1}]}),
 ("", "{{ missing|truncate(3, false, 'line2') }}", {}),
 ("bools order as ints; indent takes strings only; str.join of None raises", "{{ true > 0.1 }}{{ 1.5 > true }}", {}),
 ("", "{{ true|indent }}", {}),
 ("", "{{ ''.join(none) }}", {}),
 ("Undefined is callable; odd/even of a string is printf formatting", "{{ missing is callable }}{{ '%s' is even }}{{ 3.0 is odd }}", {}),
 ("", "{{ 'x' is odd }}", {}),
 ("Undefined|reverse is an empty iterator", "{{ missing|reverse }}|{{ missing|reverse|list }}", {}),
 ("floats print as Python's repr (also through ~); splitlines on every Python line boundary; sum of Undefined raises", "{{ 'x' ~ 1e20 ~ '|' ~ 1e-05 ~ '|' ~ 1e15 }}|{{ '\\v'.splitlines() }}{{ 'a\\fb'.splitlines() }}", {}),
 ("", "{{ [1, missing]|sum }}", {}),
 ("a for loop's else block scopes its assignments", "{% for x in [] %}{% else %}{% set y = 1 %}{% endfor %}[{{ y }}]", {}),
 ("unhashable-membership: `x in dict` of a list or dict raises (also after `for x in[`, which lost the operator rewrite)", "{%for item in[[2[3]],'']recursive%}{{loop(item if item and[])}}{%if(tools in d)%}{%endif%}{%endfor%}", {"tools": [], "d": {}}),
 ("", "{{ [] in {} }}", {}),
 ("", "{{ {} not in {'a': 1} }}", {}),
 ("", "{{ ([1],) in {} }}", {}),
 ("", "{{ (1, 'a') in {} }}{{ missing in {} }}{{ {} in (1, 2) }}", {}),
 ("undefined-ordering: ordering with Undefined raises (also in a loop filter after `in{`)", "{%for v2 in{'':bos_token,'':2}if(().count(\"\\\"\")[2]<(l|default()))%}{%macro cm4()%}{%endmacro%}{%endfor%}", {"bos_token": "<s>"}),
 ("", "{{ (0[2] < '') }}", {}),
 ("", "{%for v in[1]if(0[2]<1)%}{%endfor%}", {}),
 ("selectattr/rejectattr without an attribute fail only when iterated (seed 901)", "{%if([]!=tools|selectattr())%}{%endif%}{{ []|selectattr()|list }}{{ [] != tools|rejectattr() }}", {"tools": [{}]}),
 ("", "{{ tools|selectattr()|list }}", {"tools": [{}]}),
 ("a group's list is a list (tojson serializes it; seed 901)", "{%for x2 in(messages|groupby('role')|map('list'))%}{{(x2|tojson|safe)}}{%set b3%}{%endset%}{%endfor%}", {"messages": [{"role": "user"}]}),
 ("", "{% for g in messages|groupby('role') %}{{ g|list|tojson }}{{ g.list|tojson }}{{ g.list|length }}{% endfor %}", {"messages": [{"role": "user"}, {"role": "user"}]}),
 ("a macro argument passed as an undefined value is bound, its default does not apply (seed 901)", "{%macro mac1(a=100,b=none)%}{%for tool4 in tools if(a is lessthan 1)%}{%endfor%}{%endmacro%}{{mac1((((add_generation_prompt|string).strip())if(0b101<3)))}}", {"tools": [{}]}),
 ("", "{% macro m(c=none) %}[{{ c }}]{% endmacro %}{{ m(c=[].x) }}{{ m([].x) }}{{ m() }}{{ m(1) }}", {}),
 ("", "{% macro n(a=1) %}[{{ a }}]{% endmacro %}{% macro m(a, b=2) %}{{ n(a) }}{{ n(b) }}{% endmacro %}{{ m() }}{{ m(3) }}", {}),
 ("a slice of None is undefined (seed 902)", "{{(none and messages)[:]}}|{{ none[1:2] is defined }}", {}),
 ("break/continue in a for loop's else block leave the enclosing loop; without one the template fails to compile (seed 902: minijinja panicked)", "{% for x in [1, 2] %}{% for y in [] %}{% else %}{% continue %}{% endfor %}{{ x }}{% endfor %}", {}),
 ("", "{%for item in [] %}{%else %}{%continue %}{%endfor %}{%macro cm4() %}{%endmacro %}", {}),
 ("an iterator equals only itself, and comparing does not consume it (seed 901)", "{%if([]!=tools|selectattr(''))%}{%elif(((5)|sum))%}{%endif%}|{% set g = [1]|map('string') %}{{ g == ['1'] }}{{ g == g }}{{ g|list }}", {}),
]
rows = []
env = environment
for name, t, ctx in CASES:
    try:
        out = env().from_string(t).render(**ctx); exp = {"ok": out}
    except Exception as e:
        exp = {"error": f"{type(e).__name__}: {e}"}
    rows.append({"class": name, "template": t, "context": ctx, **exp})
print(json.dumps(rows, ensure_ascii=False, indent=1))
