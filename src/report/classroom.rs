//! GitHub Classroom's autograding results, as its reporter action
//! (`classroom-resources/autograding-grading-reporter`) reads them from a
//! grader step: the step's output `result`, the base64 of a JSON object
//! `{version: 1, status, max_score, tests: [...]}`, each test with `name`,
//! `status` (`pass`, `fail`, `error`), `score`, `message`, `test_code`,
//! `filename`, `line_no` and `duration` (milliseconds), the shape
//! Classroom's own graders (`autograding-command-grader`,
//! `autograding-io-grader`) write. The reporter adds the tests' `score`s
//! and the `max_score`s into the points it sends Classroom, and fails the
//! job on a `fail` or `error` status.
//!
//! The format prints one line, `result=<base64>`, so that a workflow step
//! appends stdout to `$GITHUB_OUTPUT` and the reporter step reads
//! `steps.<id>.outputs.result`. The reporter gets it in an environment
//! variable, which Linux caps at 128 KiB, so the JSON is kept within
//! [`LIMIT`] bytes: the longest messages are cut first, each saying so
//! (`report::fit`). The reporter prints each failed test's message in
//! the job's log, which interprets terminal escapes, so names and
//! messages go through [`sanitize::terminal`]. Like every renderer, this
//! grades nothing: it lays out what the [`Report`] says.

use super::fit;
use super::model::{Report, Status};
use super::sanitize;
use serde::Serialize;
use std::io::{self, Write};

/// The most JSON bytes written: its base64 (4/3 as long) and the
/// variable's name stay under Linux's 128 KiB for one environment string.
pub const LIMIT: usize = 96_000;

#[derive(Serialize)]
struct Results {
    version: u32,
    status: &'static str,
    max_score: u64,
    /// What the run said of the upload, and the totals (the reporter does
    /// not show it; a reader of the decoded JSON does).
    message: String,
    tests: Vec<Test>,
}

#[derive(Serialize)]
struct Test {
    name: String,
    status: &'static str,
    score: u32,
    message: String,
    test_code: String,
    filename: String,
    line_no: u32,
    duration: u64,
}

/// The report as the `result=<base64>` line of a grader step's output.
pub fn classroom(report: &Report, out: &mut dyn Write) -> io::Result<()> {
    writeln!(out, "result={}", base64(classroom_json(report).as_bytes()))
}

/// The results' JSON (compact, at most [`LIMIT`] bytes), before base64.
pub fn classroom_json(report: &Report) -> String {
    classroom_json_within(report, LIMIT)
}

fn classroom_json_within(report: &Report, limit: usize) -> String {
    let mut results = results(report);
    let texts: fit::Texts<Results> = |r| {
        let mut t: Vec<&mut String> = vec![&mut r.message];
        for test in &mut r.tests {
            t.push(&mut test.message);
            t.push(&mut test.test_code);
        }
        t
    };
    let room = limit.saturating_sub(300);
    // Too many scenarios even without their messages: the last ones are
    // left out, and their points with them, so what the reporter adds up
    // stays a fair part of max_score.
    let fit::Fitted { cuts, left_out } = fit::fit_or_drop(
        &mut results,
        room,
        fit::compact_len::<Results>,
        texts,
        |r| &mut r.tests,
    );
    if cuts > 0 {
        results.message.push_str(&format!(
            " {cuts} messages were cut to fit an environment variable; each says so."
        ));
    }
    if left_out > 0 {
        let listed: u64 = report.scenarios[..results.tests.len()]
            .iter()
            .map(|s| u64::from(s.points))
            .sum();
        results.max_score = listed;
        results.message.push_str(&format!(
            " {left_out} scenarios left out (too many for one environment variable)."
        ));
    }
    serde_json::to_string(&results).unwrap_or_default()
}

fn status_of(status: Status) -> &'static str {
    match status {
        Status::Pass | Status::Updated => "pass",
        Status::Fail => "fail",
        Status::Error => "error",
    }
}

/// The whole results, before any cut.
fn results(report: &Report) -> Results {
    let t = report.totals();
    let status = if t.errors > 0 {
        "error"
    } else if t.failed > 0 {
        "fail"
    } else {
        "pass"
    };
    let mut message = report.summary_line();
    for note in &report.told_notes() {
        message.push_str("\nnote: ");
        message.push_str(&sanitize::terminal(note));
    }
    Results {
        version: 1,
        status,
        max_score: t.possible,
        message,
        tests: report
            .scenarios
            .iter()
            .enumerate()
            .map(|(i, s)| {
                let passed = s.passed();
                if !s.shown_to_students() {
                    return Test {
                        name: s.name_for_students(i),
                        status: status_of(s.status),
                        score: s.earned,
                        message: String::new(),
                        test_code: String::new(),
                        filename: String::new(),
                        line_no: 0,
                        duration: (s.elapsed_secs * 1000.0).round() as u64,
                    };
                }
                // A pass says only what a memory check noted; a failure
                // its first mismatch, then the whole failure (the board).
                let text = if passed {
                    s.memory_notes().join("\n")
                } else if s.details.is_empty() {
                    s.message.clone()
                } else {
                    format!("{}\n{}", s.message, s.details)
                };
                Test {
                    name: sanitize::terminal(&s.name).into_owned(),
                    status: status_of(s.status),
                    score: s.earned,
                    message: sanitize::terminal(&text).into_owned(),
                    test_code: sanitize::terminal(s.step.as_deref().unwrap_or("")).into_owned(),
                    filename: s.path.clone(),
                    line_no: s.line.unwrap_or(0),
                    duration: (s.elapsed_secs * 1000.0).round() as u64,
                }
            })
            .collect(),
    }
}

/// Standard base64 (RFC 4648, with padding), as Node's
/// `Buffer.from(text, "base64")` reads it.
pub fn base64(bytes: &[u8]) -> String {
    const ALPHABET: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    let mut out = String::with_capacity(bytes.len().div_ceil(3) * 4);
    for chunk in bytes.chunks(3) {
        let b = [
            chunk[0],
            chunk.get(1).copied().unwrap_or(0),
            chunk.get(2).copied().unwrap_or(0),
        ];
        let n = (u32::from(b[0]) << 16) | (u32::from(b[1]) << 8) | u32::from(b[2]);
        for i in 0..4 {
            if i <= chunk.len() {
                out.push(ALPHABET[(n >> (18 - 6 * i) & 63) as usize] as char);
            } else {
                out.push('=');
            }
        }
    }
    out
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;
    use crate::report::model::{REPORT_VERSION, ScenarioRecord};

    /// Standard base64 back to bytes (what the reporter does; the other
    /// renderers' tests read their pictures' data URLs with it).
    pub(crate) fn decode(text: &str) -> Vec<u8> {
        let value = |c: u8| match c {
            b'A'..=b'Z' => c - b'A',
            b'a'..=b'z' => c - b'a' + 26,
            b'0'..=b'9' => c - b'0' + 52,
            b'+' => 62,
            b'/' => 63,
            _ => panic!("not base64: {c}"),
        };
        let mut out = Vec::new();
        for chunk in text.as_bytes().chunks(4) {
            let digits: Vec<u8> = chunk
                .iter()
                .filter(|&&c| c != b'=')
                .map(|&c| value(c))
                .collect();
            let mut n = 0u32;
            for (i, d) in digits.iter().enumerate() {
                n |= u32::from(*d) << (18 - 6 * i);
            }
            for i in 0..digits.len().saturating_sub(1) {
                out.push((n >> (16 - 8 * i)) as u8);
            }
        }
        out
    }

    #[test]
    fn base64_is_rfc_4648() {
        for (plain, encoded) in [
            ("", ""),
            ("f", "Zg=="),
            ("fo", "Zm8="),
            ("foo", "Zm9v"),
            ("foob", "Zm9vYg=="),
            ("fooba", "Zm9vYmE="),
            ("foobar", "Zm9vYmFy"),
        ] {
            assert_eq!(base64(plain.as_bytes()), encoded);
            assert_eq!(decode(encoded), plain.as_bytes());
        }
        let all: Vec<u8> = (0..=255).collect();
        assert_eq!(decode(&base64(&all)), all);
    }

    fn record(name: &str, status: Status, points: u32) -> ScenarioRecord {
        ScenarioRecord {
            name: name.into(),
            path: format!("scenarios/{name}"),
            rules: None,
            points,
            earned: if status == Status::Pass { points } else { 0 },
            visibility: "visible".into(),
            status,
            class: (status != Status::Pass).then(|| "wrong_answer".into()),
            line: (status != Status::Pass).then_some(9),
            step: (status != Status::Pass).then(|| "movesFrom 1 0".into()),
            message: if status == Status::Pass {
                String::new()
            } else {
                "a call did not match the expected answer at line 9".into()
            },
            details: if status == Status::Pass {
                String::new()
            } else {
                "FAIL\n  board:\n  K . \u{1b}[2J r\n".into()
            },
            elapsed_secs: 0.0425,
            boards: Vec::new(),
            memory: None,
            changes: Vec::new(),
        }
    }

    fn report(scenarios: Vec<ScenarioRecord>) -> Report {
        Report {
            chessgrade_report: REPORT_VERSION,
            subject: "s".into(),
            partition: None,
            elapsed_secs: 1.0,
            notes: vec!["left out 1 build product the upload carried: chess".into()],
            compile_error: None,
            scenarios,
            run: None,
            changes: Default::default(),
        }
    }

    /// What the reporter reads: the line's base64, decoded, parsed.
    fn read_back(r: &Report) -> serde_json::Value {
        let mut buf = Vec::new();
        classroom(r, &mut buf).unwrap();
        let line = String::from_utf8(buf).unwrap();
        assert!(
            line.ends_with('\n') && line.matches('\n').count() == 1,
            "{line}"
        );
        let b64 = line.trim_end().strip_prefix("result=").expect("result=");
        serde_json::from_slice(&decode(b64)).expect("JSON")
    }

    #[test]
    fn the_reporter_reads_each_scenario_as_a_test() {
        let v = read_back(&report(vec![
            record("a/x.txt", Status::Pass, 2),
            record("a/y.txt", Status::Fail, 3),
        ]));
        assert_eq!(v["version"], 1);
        assert_eq!(v["status"], "fail");
        assert_eq!(v["max_score"], 5);
        let t = &v["tests"][1];
        assert_eq!(t["name"], "a/y.txt");
        assert_eq!(t["status"], "fail");
        assert_eq!(t["score"], 0);
        assert_eq!(t["filename"], "scenarios/a/y.txt");
        assert_eq!(t["line_no"], 9);
        assert_eq!(t["test_code"], "movesFrom 1 0");
        assert_eq!(t["duration"], 43);
        assert_eq!(
            t["message"],
            "a call did not match the expected answer at line 9\nFAIL\n  board:\n  K . \\x1b[2J r\n"
        );
        assert_eq!(v["tests"][0]["status"], "pass");
        assert_eq!(v["tests"][0]["score"], 2);
        assert_eq!(v["tests"][0]["message"], "");
        assert!(
            v["message"]
                .as_str()
                .unwrap()
                .contains("note: left out 1 build product")
        );
    }

    #[test]
    fn a_hidden_scenario_keeps_its_score_and_status_not_its_name_or_failure() {
        let mut hidden = record("secret/king_walks_into_check.txt", Status::Fail, 3);
        hidden.visibility = "hidden".into();
        let v = read_back(&report(vec![record("a/x.txt", Status::Pass, 2), hidden]));
        let text = v.to_string();
        assert!(!text.contains("king_walks"), "{text}");
        let t = &v["tests"][1];
        assert_eq!(t["name"], "hidden scenario 2");
        assert_eq!(t["status"], "fail");
        assert_eq!(t["score"], 0);
        assert_eq!(t["message"], "");
        assert_eq!(t["test_code"], "");
        assert_eq!(v["max_score"], 5);
    }

    #[test]
    fn statuses_pass_fail_and_error() {
        let pass = read_back(&report(vec![record("a.txt", Status::Pass, 1)]));
        assert_eq!(pass["status"], "pass");
        let mut broken = record("b.txt", Status::Fail, 1);
        broken.status = Status::Error;
        let error = read_back(&report(vec![record("a.txt", Status::Fail, 1), broken]));
        assert_eq!(error["status"], "error");
        assert_eq!(error["tests"][1]["status"], "error");
    }

    #[test]
    fn a_huge_failure_is_cut_to_fit_an_environment_variable() {
        let mut r = report(vec![
            record("a.txt", Status::Pass, 1),
            record("b.txt", Status::Fail, 1),
        ]);
        r.scenarios[1].details = "♔\u{0}\"".repeat(500_000);
        let json = classroom_json(&r);
        assert!(json.len() <= LIMIT, "{}", json.len());
        let line = {
            let mut buf = Vec::new();
            classroom(&r, &mut buf).unwrap();
            buf
        };
        assert!(
            line.len() + "CHESSGRADE_RESULTS=".len() < 128 * 1024,
            "{}",
            line.len()
        );
        let v: serde_json::Value = serde_json::from_str(&json).unwrap();
        let m = v["tests"][1]["message"].as_str().unwrap();
        assert!(
            m.contains("more bytes of this text left out"),
            "{}",
            &m[m.len() - 200..]
        );
        assert!(v["message"].as_str().unwrap().contains("were cut"));
        assert_eq!(v["max_score"], 2);
    }

    #[test]
    fn too_many_scenarios_leave_the_last_out_with_their_points() {
        let scenarios = (0..100)
            .map(|i| record(&format!("dir/scenario_{i:04}.txt"), Status::Pass, 1))
            .collect();
        let json = classroom_json_within(&report(scenarios), 5_000);
        assert!(json.len() <= 5_000, "{}", json.len());
        let v: serde_json::Value = serde_json::from_str(&json).unwrap();
        let listed = v["tests"].as_array().unwrap().len() as u64;
        assert!(listed < 100, "{listed}");
        assert_eq!(v["max_score"].as_u64(), Some(listed));
    }
}
