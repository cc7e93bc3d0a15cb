//! The CLI's help: `--help`, `-h` and `help` print usage on stdout and exit 0, for the tool and per
//! subcommand; a wrong call still fails with the usage on stderr.

use std::process::Command;

fn cli(args: &[&str]) -> (bool, String, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_chat-autoparser")).args(args).output().expect("run the CLI");
    (out.status.success(), String::from_utf8_lossy(&out.stdout).into_owned(), String::from_utf8_lossy(&out.stderr).into_owned())
}

#[test]
fn help_flags_and_command_print_usage_and_succeed() {
    for args in [&["--help"][..], &["-h"], &["help"], &["help", "nonsense"]] {
        let (ok, out, err) = cli(args);
        assert!(ok, "{args:?} failed: {err}");
        assert!(out.starts_with("usage:"), "{args:?} printed {out:?}");
        for cmd in ["analyze", "compile", "grammar", "parse", "render", "version"] {
            assert!(out.contains(&format!("chat-autoparser {cmd}")), "{args:?} does not list {cmd}: {out}");
        }
        assert!(err.is_empty(), "{args:?} wrote to stderr: {err}");
    }
}

#[test]
fn help_per_subcommand() {
    for cmd in ["analyze", "compile", "grammar", "parse", "render", "version"] {
        for args in [vec![cmd, "--help"], vec![cmd, "-h"], vec!["help", cmd], vec![cmd, "FILE.jinja", "--help"]] {
            let (ok, out, err) = cli(&args);
            assert!(ok, "{args:?} failed: {err}");
            assert!(out.starts_with(&format!("usage: chat-autoparser {cmd}")), "{args:?} printed {out:?}");
        }
    }
    let (_, out, _) = cli(&["parse", "--help"]);
    assert!(out.contains("--stream N") && out.contains("--stream-arguments"), "{out}");
}

#[test]
fn a_wrong_call_is_still_an_error() {
    for args in [&[][..], &["nonsense"], &["parse"]] {
        let (ok, out, err) = cli(args);
        assert!(!ok, "{args:?} succeeded: {out}");
        assert!(err.contains("usage:"), "{args:?}: {err}");
    }
}

#[test]
fn a_closed_stdout_ends_the_tool_quietly() {
    use std::io::Read;
    use std::process::Stdio;
    // Output far larger than a pipe buffer, read by nobody: each write meets a closed pipe.
    let template = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/fixtures/conformance/templates/Qwen3.5-4B.jinja");
    let mut child = Command::new(env!("CARGO_BIN_EXE_chat-autoparser"))
        .args(["analyze", template, "--json"])
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("run the CLI");
    drop(child.stdout.take());
    let mut err = String::new();
    child.stderr.take().expect("stderr").read_to_string(&mut err).expect("read stderr");
    let status = child.wait().expect("wait");
    assert!(!err.contains("panicked"), "the CLI panicked on a closed stdout: {err}");
    assert!(status.success(), "exit status {status:?}, stderr {err}");
}
