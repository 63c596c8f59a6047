//! Rendering a [`Report`] as JSON, JUnit XML, Gradescope's `results.json`
//! (a failure's board pictures in its HTML output, [`super::picture`])
//! or GitHub Actions annotations (PrairieLearn's `results.json` is
//! [`super::prairielearn`], GitHub Classroom's grader output
//! [`super::classroom`], the HTML page [`super::html`]). Each renderer only
//! lays out what the report already says. What a submission printed is made safe for each
//! format by [`super::sanitize`]: XML-invalid characters escaped in JUnit,
//! terminal controls escaped in GitHub's log; JSON escapes by itself.

use super::model::{Report, ScenarioRecord, Status};
use super::picture::Budget;
use super::sanitize;
use quick_xml::Writer;
use quick_xml::events::{BytesCData, BytesDecl, BytesEnd, BytesStart, Event};
use serde::Serialize;
use std::io::{self, Write};

/// The report as pretty JSON (the format `chessgrade merge` reads).
pub fn json(report: &Report, out: &mut dyn Write) -> io::Result<()> {
    serde_json::to_writer_pretty(&mut *out, report).map_err(io::Error::other)?;
    writeln!(out)
}

/// How many bytes of board pictures Gradescope's `results.json` holds at
/// most (Gradescope states no limit; a class's worth of failures on large
/// boards would make a page no student waits for).
pub const GRADESCOPE_PICTURES: usize = 1_000_000;

/// Gradescope's autograder `results.json`. A failure with boards is
/// `output_format: "html"`: its cause, its board pictures (images, as
/// Gradescope shows them; within [`GRADESCOPE_PICTURES`]) and the whole
/// failure as preformatted text, all escaped; every other test's output
/// is the text.
pub fn gradescope(report: &Report, out: &mut dyn Write) -> io::Result<()> {
    #[derive(Serialize)]
    struct Results<'a> {
        score: f64,
        execution_time: u64,
        output: String,
        tests: Vec<Test<'a>>,
    }
    #[derive(Serialize)]
    struct Test<'a> {
        name: &'a str,
        number: String,
        score: f64,
        max_score: f64,
        status: &'static str,
        output: String,
        #[serde(skip_serializing_if = "Option::is_none")]
        output_format: Option<&'static str>,
        visibility: &'a str,
    }
    let totals = report.totals();
    let mut output = report.summary_line();
    for note in &report.told_notes() {
        output.push_str(&format!("\nnote: {note}"));
    }
    let mut budget = Budget::new(GRADESCOPE_PICTURES);
    let results = Results {
        score: totals.points as f64,
        execution_time: report.elapsed_secs.ceil() as u64,
        output,
        tests: report
            .scenarios
            .iter()
            .enumerate()
            .map(|(i, s)| {
                let pictures = (!s.passed()).then(|| budget.images(&s.boards)).flatten();
                let (output, output_format) = match pictures {
                    Some(images) => (gradescope_html(s, &images), Some("html")),
                    None => (s.details.clone(), None),
                };
                Test {
                    name: &s.name,
                    number: (i + 1).to_string(),
                    score: s.earned as f64,
                    max_score: s.points as f64,
                    status: if s.passed() { "passed" } else { "failed" },
                    output,
                    output_format,
                    visibility: &s.visibility,
                }
            })
            .collect(),
    };
    serde_json::to_writer_pretty(&mut *out, &results).map_err(io::Error::other)?;
    writeln!(out)
}

/// A failed test's HTML output: the cause, the pictures (title, data URL)
/// and the whole failure as text. Well-formed as XML too (each `<img/>`
/// closed), so any sanitiser reads it as written.
fn gradescope_html(s: &ScenarioRecord, images: &[(String, String)]) -> String {
    let mut h = format!(
        "<p><code>{}</code> {}</p>\n<div>",
        sanitize::html(s.class.as_deref().unwrap_or("failure")),
        sanitize::html(&s.message)
    );
    for (title, url) in images {
        h.push_str(&format!(
            "<figure style=\"display:inline-block;vertical-align:top;margin:0 1.5em 1em 0\">\
             <figcaption><strong>{t}</strong></figcaption><img alt=\"{t}\" src=\"{url}\" style=\"max-width:100%\" /></figure>",
            t = sanitize::html(title)
        ));
    }
    h.push_str(&format!(
        "</div>\n<pre>{}</pre>",
        sanitize::html(&s.details)
    ));
    h
}

/// JUnit XML as Jenkins and GitLab read it: one `<testcase>` per scenario,
/// `<failure>` for wrong results, `<error>` for unreadable input.
pub fn junit(report: &Report, out: &mut dyn Write) -> io::Result<()> {
    let totals = report.totals();
    let mut w = Writer::new_with_indent(&mut *out, b' ', 2);
    w.write_event(Event::Decl(BytesDecl::new("1.0", Some("UTF-8"), None)))?;
    let tests = report.scenarios.len().to_string();
    let failures = totals.failed.to_string();
    let errors = totals.errors.to_string();
    let time = format!("{:.3}", report.elapsed_secs);
    for tag in ["testsuites", "testsuite"] {
        let mut el = BytesStart::new(tag);
        el.push_attribute(("name", "chessgrade"));
        el.push_attribute(("tests", tests.as_str()));
        el.push_attribute(("failures", failures.as_str()));
        el.push_attribute(("errors", errors.as_str()));
        el.push_attribute(("time", time.as_str()));
        w.write_event(Event::Start(el))?;
    }
    for s in &report.scenarios {
        let classname = match s.name.rsplit_once('/') {
            Some((dir, _)) => format!("chessgrade.{}", dir.replace('/', ".")),
            None => "chessgrade".to_string(),
        };
        let mut case = BytesStart::new("testcase");
        case.push_attribute(("name", sanitize::xml(&s.name).as_ref()));
        case.push_attribute(("classname", sanitize::xml(&classname).as_ref()));
        case.push_attribute(("file", sanitize::xml(&s.path).as_ref()));
        case.push_attribute(("time", format!("{:.3}", s.elapsed_secs).as_str()));
        let tag = match s.status {
            // A pass with what a memory check noted (a leak) keeps the
            // note in the case's output.
            Status::Pass | Status::Updated if !s.memory_notes().is_empty() => {
                w.write_event(Event::Start(case))?;
                w.write_event(Event::Start(BytesStart::new("system-out")))?;
                let notes = sanitize::xml(&s.memory_notes().join("\n")).into_owned();
                w.write_event(Event::Text(quick_xml::events::BytesText::new(&notes)))?;
                w.write_event(Event::End(BytesEnd::new("system-out")))?;
                w.write_event(Event::End(BytesEnd::new("testcase")))?;
                continue;
            }
            Status::Pass | Status::Updated => {
                w.write_event(Event::Empty(case))?;
                continue;
            }
            Status::Fail => "failure",
            Status::Error => "error",
        };
        w.write_event(Event::Start(case))?;
        let mut el = BytesStart::new(tag);
        el.push_attribute(("message", sanitize::xml(&s.message).as_ref()));
        el.push_attribute(("type", s.class.as_deref().unwrap_or("failure")));
        w.write_event(Event::Start(el))?;
        // CDATA cannot hold "]]>": split it across two sections.
        let details = sanitize::xml(&s.details);
        let parts: Vec<&str> = details.split("]]>").collect();
        for (i, part) in parts.iter().enumerate() {
            let open = if i == 0 { "" } else { ">" };
            let close = if i + 1 < parts.len() { "]]" } else { "" };
            w.write_event(Event::CData(BytesCData::new(format!(
                "{open}{part}{close}"
            ))))?;
        }
        w.write_event(Event::End(BytesEnd::new(tag)))?;
        w.write_event(Event::End(BytesEnd::new("testcase")))?;
    }
    // What the run said of the upload (what was left out, where it was
    // built from): the suite's own output, as Jenkins and GitLab show it.
    let told = report.told_notes();
    if !told.is_empty() {
        let notes: Vec<String> = told.iter().map(|n| format!("note: {n}")).collect();
        w.write_event(Event::Start(BytesStart::new("system-out")))?;
        let text = sanitize::xml(&notes.join("\n")).into_owned();
        w.write_event(Event::Text(quick_xml::events::BytesText::new(&text)))?;
        w.write_event(Event::End(BytesEnd::new("system-out")))?;
    }
    w.write_event(Event::End(BytesEnd::new("testsuite")))?;
    w.write_event(Event::End(BytesEnd::new("testsuites")))?;
    writeln!(out)
}

/// GitHub Actions workflow commands: a `::notice` per note of the run
/// (what was left out of the upload, ...), an `::error` annotation per
/// failed scenario, pointing at the scenario file and the line of the
/// first mismatch, then a summary line.
pub fn github(report: &Report, out: &mut dyn Write) -> io::Result<()> {
    for note in &report.told_notes() {
        writeln!(out, "::notice title=chessgrade::{}", escape_data(note))?;
    }
    for s in &report.scenarios {
        if matches!(s.status, Status::Pass | Status::Updated) {
            // What a memory check noted on a passing scenario: a warning.
            let notes = s.memory_notes();
            if !notes.is_empty() {
                writeln!(
                    out,
                    "::warning file={},title={}::{}",
                    escape_property(&s.path),
                    escape_property(&format!("chessgrade: {}", s.name)),
                    escape_data(&notes.join("\n"))
                )?;
            }
            continue;
        }
        let line = s.line.map_or(String::new(), |l| format!(",line={l}"));
        writeln!(
            out,
            "::error file={}{line},title={}::{}",
            escape_property(&s.path),
            escape_property(&format!("chessgrade: {}", s.name)),
            escape_data(&format!("{}\n{}", s.message, s.details))
        )?;
    }
    let t = report.totals();
    writeln!(
        out,
        "chessgrade: {} passed, {} failed, {} errors; points {}/{}",
        t.passed, t.failed, t.errors, t.points, t.possible
    )
}

fn escape_data(s: &str) -> String {
    sanitize::terminal(s)
        .replace('%', "%25")
        .replace('\r', "%0D")
        .replace('\n', "%0A")
}

fn escape_property(s: &str) -> String {
    escape_data(s).replace(':', "%3A").replace(',', "%2C")
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::report::model::{REPORT_VERSION, ScenarioRecord};

    #[test]
    fn every_format_carries_the_runs_notes() {
        let mut report = sample();
        report.notes = vec!["left out 2 build products the upload carried: main.o, chess".into()];
        for render in [json, junit, github, gradescope] {
            let mut out = Vec::new();
            render(&report, &mut out).unwrap();
            let text = String::from_utf8(out).unwrap();
            assert!(
                text.contains("left out 2 build products the upload carried: main.o, chess"),
                "{text}"
            );
        }
        let mut out = Vec::new();
        junit(&report, &mut out).unwrap();
        let text = String::from_utf8(out).unwrap();
        assert!(
            text.contains("<system-out>note: left out 2 build products the upload carried: main.o, chess</system-out>\n  </testsuite>"),
            "{text}"
        );
    }

    fn sample() -> Report {
        let rec = |name: &str, status, line| ScenarioRecord {
            name: name.into(),
            path: format!("scenarios/{name}"),
            rules: None,
            points: 2,
            earned: if status == Status::Pass { 2 } else { 0 },
            visibility: "hidden".into(),
            status,
            class: (status != Status::Pass).then(|| "wrong_answer".into()),
            line,
            step: None,
            message: "a call did not match, at line 7".into(),
            details: "details <&> ]]> end".into(),
            elapsed_secs: 0.25,
            boards: Vec::new(),
            memory: None,
            changes: Vec::new(),
        };
        Report {
            chessgrade_report: REPORT_VERSION,
            subject: "s".into(),
            partition: None,
            elapsed_secs: 1.2,
            notes: vec![],
            compile_error: None,
            scenarios: vec![
                rec("a/x.txt", Status::Pass, None),
                rec("a/y.txt", Status::Fail, Some(7)),
            ],
            run: None,
            changes: Default::default(),
        }
    }

    fn render(f: fn(&Report, &mut dyn Write) -> io::Result<()>) -> String {
        let mut buf = Vec::new();
        f(&sample(), &mut buf).unwrap();
        String::from_utf8(buf).unwrap()
    }

    #[test]
    fn gradescope_has_the_spec_fields() {
        let v: serde_json::Value = serde_json::from_str(&render(gradescope)).unwrap();
        assert_eq!(v["score"], 2.0);
        assert_eq!(v["execution_time"], 2);
        let t = &v["tests"][1];
        assert_eq!(t["name"], "a/y.txt");
        assert_eq!(t["number"], "2");
        assert_eq!(
            (t["score"].as_f64(), t["max_score"].as_f64()),
            (Some(0.0), Some(2.0))
        );
        assert_eq!(t["status"], "failed");
        assert_eq!(t["visibility"], "hidden");
        assert_eq!(v["tests"][0]["status"], "passed");
    }

    #[test]
    fn junit_is_well_formed_xml_with_counts() {
        let xml = render(junit);
        let mut reader = quick_xml::Reader::from_str(&xml);
        let mut cases = 0;
        let mut failures = 0;
        let mut cdata = String::new();
        loop {
            match reader.read_event().expect("well-formed XML") {
                Event::Eof => break,
                Event::Start(e) | Event::Empty(e) if e.name().as_ref() == "testcase" => cases += 1,
                Event::Start(e) if e.name().as_ref() == "failure" => failures += 1,
                Event::CData(t) => cdata.push_str(&t.into_inner()),
                _ => {}
            }
        }
        assert_eq!((cases, failures), (2, 1));
        assert_eq!(cdata, "details <&> ]]> end", "CDATA survives intact");
        assert!(xml.contains("tests=\"2\" failures=\"1\" errors=\"0\""));
    }

    /// A report carrying what a hostile submission printed.
    fn hostile() -> Report {
        let mut report = sample();
        let s = &mut report.scenarios[1];
        s.message = "answered `\x1b[2J\x07\x00`".into();
        s.details = "stderr: \x1b]0;pwned\x07\x00\x08\u{fffe} ]]> \u{202e}end".into();
        s.name = "a/\x1by.txt".into();
        report
    }

    fn render_hostile(f: fn(&Report, &mut dyn Write) -> io::Result<()>) -> String {
        let mut buf = Vec::new();
        f(&hostile(), &mut buf).unwrap();
        String::from_utf8(buf).unwrap()
    }

    #[test]
    fn junit_stays_well_formed_whatever_a_submission_prints() {
        let xml = render_hostile(junit);
        let mut reader = quick_xml::Reader::from_str(&xml);
        let mut cdata = String::new();
        let mut message = String::new();
        loop {
            match reader.read_event().expect("well-formed XML") {
                Event::Eof => break,
                Event::Start(e) if e.name().as_ref() == "failure" => {
                    let attr = e.try_get_attribute("message").unwrap().unwrap();
                    message = attr
                        .normalized_value(quick_xml::XmlVersion::Explicit1_0)
                        .unwrap()
                        .into_owned();
                }
                Event::CData(t) => cdata.push_str(&t.into_inner()),
                _ => {}
            }
        }
        // Every character is one XML 1.0 allows (the parser above does not
        // check that by itself).
        let allowed = |c: char| matches!(c, '\t' | '\n' | '\r' | '\u{20}'..='\u{D7FF}' | '\u{E000}'..='\u{FFFD}' | '\u{10000}'..);
        assert!(xml.chars().all(allowed), "{xml:?}");
        assert_eq!(message, "answered `\\x1b[2J\\x07\\x00`");
        assert_eq!(
            cdata,
            "stderr: \\x1b]0;pwned\\x07\\x00\\x08\\u{fffe} ]]> \u{202e}end"
        );
    }

    #[test]
    fn json_carries_a_submissions_text_exactly_and_stays_valid() {
        type Field = fn(&serde_json::Value) -> &serde_json::Value;
        let renderers: [(_, Field); 2] = [
            (json as fn(&Report, &mut dyn Write) -> io::Result<()>, |v| {
                &v["scenarios"][1]["details"]
            }),
            (gradescope, |v| &v["tests"][1]["output"]),
        ];
        for (render, details) in renderers {
            let text = render_hostile(render);
            assert!(
                !text.chars().any(|c| c.is_control() && c != '\n'),
                "{text:?}"
            );
            let v: serde_json::Value = serde_json::from_str(&text).expect("valid JSON");
            assert_eq!(
                details(&v).as_str(),
                Some(hostile().scenarios[1].details.as_str())
            );
        }
    }

    #[test]
    fn github_logs_get_no_terminal_controls() {
        let text = render_hostile(github);
        assert!(
            !text.chars().any(|c| c.is_control() && c != '\n'),
            "{text:?}"
        );
        assert!(text.contains("\\x1b]0;pwned\\x07"), "{text}");
        assert!(text.contains("\\u{202e}end"), "{text}");
    }

    #[test]
    fn github_annotations_point_at_file_and_line() {
        let text = render(github);
        assert!(text.starts_with("::error file=scenarios/a/y.txt,line=7,title=chessgrade%3A a/y.txt::a call did not match, at line 7"), "{text}");
        assert!(text.contains("%0Adetails"));
        assert!(text.ends_with("chessgrade: 1 passed, 1 failed, 0 errors; points 2/4\n"));
    }

    /// A failure with a board, as a scenario of `sample()`.
    fn with_board(mut r: Report) -> Report {
        use crate::report::diagram::{Coords, Diagram};
        r.scenarios[1].boards = vec![
            Diagram::new(
                "board before the step",
                &crate::engine::BoardText("K.<&/..\u{1b}'".into()),
                Coords::Numbers,
            )
            .with_scan_items(&["  V 0 0 1 1".into()], &[]),
        ];
        r
    }

    /// Every element of an HTML fragment parses (as XML: a stricter
    /// reader than any browser or sanitiser); its text, references decoded.
    fn well_formed(html: &str) -> String {
        crate::report::picture::tests::texts(&format!("<div>{html}</div>")).join("")
    }

    #[test]
    fn a_gradescope_failure_with_a_board_is_html_with_its_picture() {
        let report = with_board(hostile());
        let mut buf = Vec::new();
        gradescope(&report, &mut buf).unwrap();
        let v: serde_json::Value = serde_json::from_slice(&buf).unwrap();
        assert_eq!(v["tests"][0].get("output_format"), None, "a pass is text");
        let t = &v["tests"][1];
        assert_eq!(t["output_format"], "html");
        let html = t["output"].as_str().unwrap();
        assert!(
            html.contains("<img alt=\"board before the step\" src=\"data:image/svg+xml;base64,")
        );
        let text = well_formed(html);
        // What the submission wrote is there, escaped, as it wrote it
        // (controls made visible).
        assert!(text.contains("answered `\\x1b[2J\\x07\\x00`"), "{text}");
        assert!(
            text.contains("stderr: \\x1b]0;pwned\\x07\\x00\\x08\\u{fffe} ]]> \\u{202e}end"),
            "{text}"
        );
        // The picture itself is a well-formed SVG of the board.
        let url = html
            .split("src=\"")
            .nth(1)
            .unwrap()
            .split('"')
            .next()
            .unwrap();
        let svg = crate::report::classroom::tests::decode(
            url.strip_prefix("data:image/svg+xml;base64,").unwrap(),
        );
        let svg = String::from_utf8(svg).unwrap();
        well_formed(&svg);
        assert!(svg.contains("<rect class=\"missing\""), "{svg}");
    }

    #[test]
    fn gradescopes_pictures_stop_at_their_budget_and_the_text_stays() {
        let one = with_board(sample());
        let failure = one.scenarios[1].clone();
        let mut report = sample();
        report.scenarios = (0..2000)
            .map(|i| ScenarioRecord {
                name: format!("a/{i}.txt"),
                ..failure.clone()
            })
            .collect();
        let mut buf = Vec::new();
        gradescope(&report, &mut buf).unwrap();
        let v: serde_json::Value = serde_json::from_slice(&buf).unwrap();
        let tests = v["tests"].as_array().unwrap();
        let html = tests
            .iter()
            .filter(|t| t["output_format"] == "html")
            .count();
        assert!(html > 50 && html < 2000, "{html}");
        assert!(tests[..html].iter().all(|t| t["output_format"] == "html"));
        assert_eq!(tests[html]["output"], failure.details.as_str());
        let pictures: usize = tests[..html]
            .iter()
            .map(|t| t["output"].as_str().unwrap().len())
            .sum();
        assert!(pictures < GRADESCOPE_PICTURES + html * 1000, "{pictures}");
    }

    /// A report whose passing scenario leaked (the memory check's note).
    fn leaking() -> Report {
        use crate::memcheck::{Findings, Frame, Leak, Leaks, Tool};
        let mut report = sample();
        report.scenarios[0].memory = Some(Findings {
            tool: Tool::Valgrind,
            error: None,
            errors: 0,
            leaks: Some(Leaks {
                bytes: 64,
                blocks: 2,
                largest: vec![Leak {
                    bytes: 64,
                    blocks: 2,
                    allocated: Some(Frame {
                        function: "Board::add".into(),
                        file: "Board.cpp".into(),
                        line: 40,
                    }),
                }],
            }),
        });
        report
    }

    #[test]
    fn a_leak_on_a_passing_scenario_is_in_every_format() {
        let note = "valgrind: memory leak: 64 bytes leaked in 2 blocks: 64 bytes in 2 blocks allocated at Board.cpp:40 (Board::add)";
        let with = |f: fn(&Report, &mut dyn Write) -> io::Result<()>| {
            let mut buf = Vec::new();
            f(&leaking(), &mut buf).unwrap();
            String::from_utf8(buf).unwrap()
        };
        let xml = with(junit);
        assert!(
            xml.contains(&format!("<system-out>{note}</system-out>")),
            "{xml}"
        );
        let mut reader = quick_xml::Reader::from_str(&xml);
        while !matches!(reader.read_event().expect("well-formed XML"), Event::Eof) {}
        let gh = with(github);
        assert!(
            gh.starts_with(
                "::warning file=scenarios/a/x.txt,title=chessgrade%3A a/x.txt::valgrind: memory leak"
            ),
            "{gh}"
        );
        let v: serde_json::Value = serde_json::from_str(&with(json)).unwrap();
        let m = &v["scenarios"][0]["memory"];
        assert_eq!(m["tool"], "valgrind");
        assert_eq!(m["leaks"]["bytes"], 64);
        assert_eq!(m["leaks"]["largest"][0]["allocated"]["line"], 40);
        assert_eq!(v["scenarios"][1].get("memory"), None, "unchecked: no field");
        let back: Report = serde_json::from_value(v).unwrap();
        assert_eq!(back, leaking(), "merge reads it back");
    }
}
