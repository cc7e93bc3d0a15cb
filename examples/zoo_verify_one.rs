//! Print the verify_template report of one template file (debugging aid for the zoo work list).
use chat_autoparser::{verify_template, ChatTemplate, RenderOptions};
fn main() {
    let path = std::env::args().nth(1).expect("usage: zoo_verify_one FILE.jinja");
    let t = ChatTemplate::new(&std::fs::read_to_string(path).unwrap(), RenderOptions::default()).unwrap();
    for r in verify_template(&t).results {
        println!("{} ok={} skipped={:?} error={:?}\n  output {:?}", r.name, r.ok, r.skipped, r.error, r.output);
    }
}
