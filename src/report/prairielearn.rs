//! PrairieLearn's external-grader `results.json` (what its
//! `<pl-external-grader-results>` element shows): the score as a fraction,
//! the points, a test per scenario with its first mismatch and the whole
//! failure, and `"gradable": false` with the compiler's message when the
//! upload did not build (the report's typed `compile_error`), or with why
//! when it holds nothing of the kind graded, so PrairieLearn neither scores
//! the attempt nor counts it against the student.
//!
//! A shown failure's boards are its test's `images` (SVG pictures as
//! `data:` URLs, [`super::picture`], within [`PICTURES`] bytes).
//!
//! Like every renderer it lays out what the [`Report`] says and grades
//! nothing. PrairieLearn refuses a file over 1 MB, and a submission decides
//! how long its failures are, so the longest texts are cut to fit
//! (`report::fit`), each saying so, and the top-level message too.

use super::fit;
use super::model::Report;
use super::picture::Budget;
use serde::Serialize;
use std::io::{self, Write};

/// PrairieLearn's limit on `results.json` (1 MB, taken as 10^6 bytes).
pub const LIMIT: usize = 1_000_000;

/// What the top-level message may grow by after the texts were cut (the
/// note saying so).
const NOTE_ROOM: usize = 400;

#[derive(Serialize)]
struct Results {
    gradable: bool,
    score: f64,
    points: u64,
    max_points: u64,
    message: String,
    output: String,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    format_errors: Vec<String>,
    tests: Vec<Test>,
}

#[derive(Serialize)]
struct Test {
    name: String,
    description: String,
    points: u32,
    max_points: u32,
    message: String,
    output: String,
    /// The failure's board pictures, as PrairieLearn shows a test's images.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    images: Vec<Image>,
}

#[derive(Serialize)]
struct Image {
    label: String,
    url: String,
}

/// How many bytes of the file's [`LIMIT`] the board pictures may take; the
/// texts (which say everything the pictures show) keep the rest.
pub const PICTURES: usize = 400_000;

/// The report as PrairieLearn's `results.json`, at most [`LIMIT`] bytes.
pub fn prairielearn(report: &Report, out: &mut dyn Write) -> io::Result<()> {
    prairielearn_within(report, LIMIT, out)
}

fn prairielearn_within(report: &Report, limit: usize, out: &mut dyn Write) -> io::Result<()> {
    let mut results = results(report);
    let texts: fit::Texts<Results> = |r| {
        let mut t: Vec<&mut String> = vec![&mut r.message, &mut r.output];
        t.extend(r.format_errors.iter_mut());
        for test in &mut r.tests {
            t.push(&mut test.message);
            t.push(&mut test.output);
            t.push(&mut test.description);
        }
        t
    };
    let room = limit.saturating_sub(NOTE_ROOM);
    // More scenarios than the limit holds even without their texts: the
    // last ones are left out (the score stays the whole run's).
    let fit::Fitted { cuts, left_out } =
        fit::fit_or_drop(&mut results, room, fit::pretty_len::<Results>, texts, |r| {
            &mut r.tests
        });
    if cuts > 0 {
        results.message.push_str(&format!(
            " {cuts} texts were cut to keep this file within PrairieLearn's 1 MB limit; each says so where it was cut."
        ));
    }
    if left_out > 0 {
        results.message.push_str(&format!(
            " {left_out} scenarios are left out of the list below (the file would be over 1 MB); the score counts them."
        ));
    }
    serde_json::to_writer_pretty(&mut *out, &results).map_err(io::Error::other)?;
    writeln!(out)
}

/// The whole results, before any cut.
fn results(report: &Report) -> Results {
    let t = report.totals();
    let mut budget = Budget::new(PICTURES);
    let all_passed = t.failed + t.errors == 0;
    let score = if t.possible == 0 {
        if all_passed { 1.0 } else { 0.0 }
    } else {
        t.points as f64 / t.possible as f64
    };
    // Nothing of the upload ran: it did not compile, or it holds nothing
    // of the kind graded (every scenario `not_recognised`). Either way the
    // student's attempt is not graded, and says why.
    let not_recognised = !report.scenarios.is_empty()
        && report
            .scenarios
            .iter()
            .all(|s| s.class.as_deref() == Some("not_recognised"));
    let format_errors: Vec<String> = match (&report.compile_error, not_recognised) {
        (Some(message), _) => vec![message.clone()],
        // Why, as its scenarios say it (each says the same).
        (None, true) => {
            let first = &report.scenarios[0];
            vec![match first.details.is_empty() {
                true => first.message.clone(),
                false => first.details.clone(),
            }]
        }
        (None, false) => Vec::new(),
    };
    let unbuilt = !format_errors.is_empty();
    let message = if report.compile_error.is_some() {
        "The upload did not build; the compiler's message is below. This attempt is not graded."
            .to_string()
    } else if unbuilt {
        "The upload holds no submission of the kind graded (see below). This attempt is not graded."
            .to_string()
    } else {
        report.summary_line()
    };
    let output: Vec<String> = report.notes.iter().map(|n| format!("note: {n}")).collect();
    Results {
        gradable: !unbuilt,
        score: if unbuilt { 0.0 } else { score },
        points: t.points,
        max_points: t.possible,
        message,
        output: output.join("\n"),
        format_errors,
        tests: report
            .scenarios
            .iter()
            .enumerate()
            .map(|(i, s)| {
                let passed = s.passed();
                if !s.shown_to_students() {
                    return Test {
                        name: s.name_for_students(i),
                        description: String::new(),
                        points: s.earned,
                        max_points: s.points,
                        message: if passed { "passed" } else { "failed" }.to_string(),
                        output: String::new(),
                        images: Vec::new(),
                    };
                }
                let first = s.message.lines().next().unwrap_or("");
                Test {
                    name: s.name.clone(),
                    description: s.path.clone(),
                    points: s.earned,
                    max_points: s.points,
                    message: if passed && first.is_empty() {
                        "passed".to_string()
                    } else {
                        first.to_string()
                    },
                    output: s.details.clone(),
                    images: (!passed)
                        .then(|| budget.images(&s.boards))
                        .flatten()
                        .unwrap_or_default()
                        .into_iter()
                        .map(|(label, url)| Image { label, url })
                        .collect(),
                }
            })
            .collect(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::report::model::{REPORT_VERSION, ScenarioRecord, Status};

    fn record(name: &str, status: Status, points: u32, class: Option<&str>) -> ScenarioRecord {
        ScenarioRecord {
            name: name.into(),
            path: format!("scenarios/{name}"),
            rules: None,
            points,
            earned: if status == Status::Pass { points } else { 0 },
            visibility: "visible".into(),
            status,
            class: class.map(str::to_string),
            line: (status != Status::Pass).then_some(7),
            step: None,
            message: if status == Status::Pass {
                String::new()
            } else {
                "a call did not match the expected answer at line 7: movesFrom 1 0\nsecond line"
                    .into()
            },
            details: if status == Status::Pass {
                String::new()
            } else {
                "FAIL   0/2   a/y.txt\n  expected ...\n  board:\n  K . r\n".into()
            },
            elapsed_secs: 0.25,
            boards: Vec::new(),
            memory: None,
            changes: Vec::new(),
        }
    }

    fn report(scenarios: Vec<ScenarioRecord>, notes: Vec<String>) -> Report {
        Report {
            chessgrade_report: REPORT_VERSION,
            subject: "s".into(),
            partition: None,
            elapsed_secs: 1.0,
            notes,
            compile_error: None,
            scenarios,
            run: None,
            changes: Default::default(),
        }
    }

    fn render(r: &Report, limit: usize) -> (String, serde_json::Value) {
        let mut buf = Vec::new();
        prairielearn_within(r, limit, &mut buf).unwrap();
        let text = String::from_utf8(buf).expect("UTF-8");
        let v = serde_json::from_str(&text).expect("valid JSON");
        (text, v)
    }

    #[test]
    fn a_hidden_scenario_keeps_its_points_and_verdict_not_its_name_or_failure() {
        let mut hidden = record("secret/king_walks_into_check.txt", Status::Fail, 2, None);
        hidden.visibility = "hidden".into();
        let mut later = record("later/x.txt", Status::Pass, 1, None);
        later.visibility = "after_due_date".into();
        let r = report(vec![hidden, later], Vec::new());
        let (text, v) = render(&r, LIMIT);
        assert!(!text.contains("king_walks"), "{text}");
        assert!(!text.contains("board:"), "{text}");
        let t = &v["tests"][0];
        assert_eq!(t["name"], "hidden scenario 1");
        assert_eq!(t["message"], "failed");
        assert_eq!(t["output"], "");
        assert_eq!(
            (t["points"].as_u64(), t["max_points"].as_u64()),
            (Some(0), Some(2))
        );
        assert_eq!(v["tests"][1]["name"], "hidden scenario 2");
        assert_eq!(v["tests"][1]["message"], "passed");
        assert_eq!(v["points"], 1);
    }

    #[test]
    fn the_score_is_the_fraction_of_the_points() {
        let r = report(
            vec![
                record("a/x.txt", Status::Pass, 3, None),
                record("a/y.txt", Status::Fail, 1, Some("wrong_answer")),
            ],
            vec!["left out 1 build product the upload carried: chess".into()],
        );
        let (_, v) = render(&r, LIMIT);
        assert_eq!(v["score"], 0.75);
        assert_eq!(
            (v["points"].as_u64(), v["max_points"].as_u64()),
            (Some(3), Some(4))
        );
        assert_eq!(v["gradable"], true);
        assert!(v.get("format_errors").is_none());
        assert_eq!(v["message"], "1 of 2 scenarios passed; 3 / 4 points.");
        assert_eq!(
            v["output"],
            "note: left out 1 build product the upload carried: chess"
        );
        let t = &v["tests"][1];
        assert_eq!(t["name"], "a/y.txt");
        assert_eq!(t["description"], "scenarios/a/y.txt");
        assert_eq!(
            (t["points"].as_u64(), t["max_points"].as_u64()),
            (Some(0), Some(1))
        );
        assert_eq!(
            t["message"],
            "a call did not match the expected answer at line 7: movesFrom 1 0"
        );
        assert!(t["output"].as_str().unwrap().contains("board:\n  K . r"));
        assert_eq!(v["tests"][0]["message"], "passed");
    }

    #[test]
    fn no_points_to_earn_scores_by_whether_all_passed() {
        let pass = report(vec![record("a.txt", Status::Pass, 0, None)], vec![]);
        assert_eq!(render(&pass, LIMIT).1["score"], 1.0);
        let fail = report(
            vec![record("a.txt", Status::Fail, 0, Some("wrong_answer"))],
            vec![],
        );
        assert_eq!(render(&fail, LIMIT).1["score"], 0.0);
        assert_eq!(render(&report(vec![], vec![]), LIMIT).1["score"], 1.0);
    }

    #[test]
    fn an_upload_that_does_not_build_is_not_gradable() {
        let mut r = report(
            vec![
                record("a.txt", Status::Fail, 1, Some("compile_error")),
                record("b.txt", Status::Fail, 1, Some("compile_error")),
            ],
            vec!["upload: the program is in Lab3/, graded from there".into()],
        );
        r.compile_error = Some("Board.cc:3:1: error: expected ';'".into());
        let (_, v) = render(&r, LIMIT);
        assert_eq!(v["gradable"], false);
        assert_eq!(
            v["format_errors"],
            serde_json::json!(["Board.cc:3:1: error: expected ';'"])
        );
        assert_eq!(v["score"], 0.0);
        assert!(v["message"].as_str().unwrap().contains("did not build"));
        // Scenarios that fail as compile errors without the report's
        // compiler message (a build that could not start, the staff's):
        // gradable, scored 0; and a note that reads like one is no message.
        let mut r = report(
            vec![record("a.txt", Status::Fail, 1, Some("compile_error"))],
            vec!["compile error:\nBoard.cc:3:1: error: expected ';'".into()],
        );
        assert_eq!(render(&r, LIMIT).1["gradable"], true);
        r.compile_error = Some("x".into());
        assert_eq!(render(&r, LIMIT).1["gradable"], false);
    }

    #[test]
    fn an_upload_with_nothing_recognisable_is_not_gradable() {
        let unrecognised = |name: &str| ScenarioRecord {
            message: "not a recognised submission".into(),
            details: "not a Lab 3 submission: no ChessBoard.hh".into(),
            ..record(name, Status::Fail, 1, Some("not_recognised"))
        };
        let r = report(vec![unrecognised("a.txt"), unrecognised("b.txt")], vec![]);
        let (_, v) = render(&r, LIMIT);
        assert_eq!(v["gradable"], false);
        assert_eq!(
            v["format_errors"],
            serde_json::json!(["not a Lab 3 submission: no ChessBoard.hh"])
        );
        assert!(
            v["message"]
                .as_str()
                .unwrap()
                .contains("no submission of the kind graded")
        );
        // One scenario that ran: gradable.
        let r = report(
            vec![
                unrecognised("a.txt"),
                record("b.txt", Status::Fail, 1, Some("wrong_answer")),
            ],
            vec![],
        );
        assert_eq!(render(&r, LIMIT).1["gradable"], true);
    }

    /// A failing record with a board (a scan's missing target marked).
    fn with_board(name: &str) -> ScenarioRecord {
        use crate::report::diagram::{Coords, Diagram};
        let mut r = record(name, Status::Fail, 1, Some("wrong_answer"));
        r.boards = vec![
            Diagram::new(
                "board before the step",
                &crate::engine::BoardText("K./..".into()),
                Coords::Numbers,
            )
            .with_scan_items(&["  V 0 0 1 1".into()], &[]),
        ];
        r
    }

    #[test]
    fn a_shown_failures_boards_are_its_images_and_a_hidden_ones_are_not() {
        let mut hidden = with_board("secret.txt");
        hidden.visibility = "hidden".into();
        let r = report(
            vec![
                with_board("a.txt"),
                hidden,
                record("c.txt", Status::Pass, 1, None),
            ],
            vec![],
        );
        let (_, v) = render(&r, LIMIT);
        let images = v["tests"][0]["images"].as_array().unwrap();
        assert_eq!(images.len(), 1);
        assert_eq!(images[0]["label"], "board before the step");
        let url = images[0]["url"].as_str().unwrap();
        let svg = crate::report::classroom::tests::decode(
            url.strip_prefix("data:image/svg+xml;base64,").unwrap(),
        );
        let svg = String::from_utf8(svg).unwrap();
        crate::report::picture::tests::texts(&svg);
        assert!(svg.contains("<rect class=\"missing\""), "{svg}");
        assert_eq!(v["tests"][1].get("images"), None, "hidden: no board");
        assert_eq!(v["tests"][2].get("images"), None, "a pass: none");
    }

    #[test]
    fn many_pictures_stay_within_their_share_and_the_file_within_its_limit() {
        let r = report(
            (0..3000)
                .map(|i| with_board(&format!("s{i:04}.txt")))
                .collect(),
            vec![],
        );
        let (text, v) = render(&r, LIMIT);
        assert!(text.len() <= LIMIT, "{}", text.len());
        let tests = v["tests"].as_array().unwrap();
        let with = tests.iter().filter(|t| t.get("images").is_some()).count();
        assert!(with > 20, "{with}");
        let bytes: usize = tests
            .iter()
            .filter_map(|t| t["images"].as_array())
            .flatten()
            .map(|i| i["url"].as_str().unwrap().len())
            .sum();
        assert!(bytes <= PICTURES, "{bytes}");
    }

    #[test]
    fn a_huge_failure_is_cut_to_fit_one_megabyte() {
        let mut r = report(
            vec![
                record("a.txt", Status::Pass, 1, None),
                record("b.txt", Status::Fail, 1, Some("wrong_answer")),
                record("c.txt", Status::Fail, 1, Some("wrong_answer")),
            ],
            vec![],
        );
        // A 256x256 board per step, and stderr full of escapes and
        // characters of several bytes.
        r.scenarios[1].details = "♔.\u{1b}[2J\"\\\n".repeat(300_000);
        r.scenarios[2].details = "short failure".into();
        r.scenarios[2].message = "x".repeat(2_000_000);
        let (text, v) = render(&r, LIMIT);
        assert!(text.len() <= LIMIT, "{}", text.len());
        assert!(
            text.len() > LIMIT - 10_000,
            "cut no more than needed: {}",
            text.len()
        );
        let out = v["tests"][1]["output"].as_str().unwrap();
        assert!(out.starts_with("♔.\u{1b}[2J\"\\\n♔"), "{:?}", &out[..40]);
        assert!(
            out.contains("more bytes of this text left out"),
            "{}",
            &out[out.len() - 200..]
        );
        assert_eq!(v["tests"][2]["output"], "short failure");
        assert!(
            v["message"]
                .as_str()
                .unwrap()
                .contains("were cut to keep this file within")
        );
        assert_eq!(v["score"].as_f64(), Some(1.0 / 3.0));
    }

    #[test]
    fn too_many_scenarios_for_the_limit_leave_the_last_out_of_the_list() {
        let scenarios = (0..200)
            .map(|i| record(&format!("dir/scenario_{i:04}.txt"), Status::Pass, 1, None))
            .collect();
        let (text, v) = render(&report(scenarios, vec![]), 20_000);
        assert!(text.len() <= 20_000, "{}", text.len());
        let listed = v["tests"].as_array().unwrap().len();
        assert!(listed < 200 && listed > 50, "{listed}");
        assert_eq!(v["max_points"], 200);
        assert!(
            v["message"]
                .as_str()
                .unwrap()
                .contains("scenarios are left out")
        );
    }
}
