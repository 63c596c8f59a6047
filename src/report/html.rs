//! The HTML reports: self-contained pages (inline CSS, no network, no
//! external fonts), each board drawn as a picture ([`super::picture`]).
//!
//! - [`student_page`]: one submission's report, the page its student
//!   reads: what did not build (the compiler's message) first, then each
//!   failed scenario with its one-line cause, its board pictures shown and
//!   the whole failure as text, then the passes. No script.
//! - [`page`]: a class (or several runs): a table with a row per
//!   submission and a column per scenario with the points earned; columns
//!   sort on a click; a failing cell opens its first mismatch (the cause,
//!   the pictures, the text).
//!
//! Everything shown comes from the [`Report`]s: a page computes nothing
//! but sort orders. Every text goes through [`super::sanitize::html`], the one
//! escaping function of the pages and pictures.

use super::diagram::Diagram;
use super::model::{Report, ScenarioRecord, Status};
use super::picture;
use super::sanitize::html as esc;
use std::fmt::Write;

/// A whole page: `<head>` (the title, the shared style), then `body`, and
/// `script` (if any) at its end.
pub(crate) fn document(title: &str, body: &str, script: Option<&str>) -> String {
    let mut h = String::new();
    let _ = write!(
        h,
        "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n\
         <meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n\
         <title>{}</title>\n<style>{CSS}</style>\n</head>\n<body>\n",
        esc(title)
    );
    h.push_str(body);
    if let Some(js) = script {
        let _ = writeln!(h, "<script>{js}</script>");
    }
    h.push_str("</body>\n</html>\n");
    h
}

/// A board picture with its title as a caption.
pub fn figure(d: &Diagram) -> String {
    format!(
        "<figure class=\"diagram\"><figcaption>{}</figcaption>{}</figure>",
        esc(&d.title),
        picture::svg(d)
    )
}

/// A failure's pictures, side by side (nothing when it has none).
fn figures(s: &ScenarioRecord) -> String {
    if s.boards.is_empty() {
        return String::new();
    }
    let all: String = s.boards.iter().map(figure).collect();
    format!("<div class=\"boards\">{all}</div>\n")
}

/// Whether a failure is only the build's (nothing of the scenario ran).
fn unbuilt(s: &ScenarioRecord) -> bool {
    matches!(s.class.as_deref(), Some("compile_error" | "not_recognised"))
}

/// One submission's page (see the module doc).
pub fn student_page(report: &Report) -> String {
    let t = report.totals();
    let mut b = String::new();
    let _ = write!(
        b,
        "<h1>{}</h1>\n<p class=\"totals\"><span id=\"passed\">{}</span> of <span id=\"scenarios\">{}</span> scenarios passed · \
         <span id=\"failed\">{}</span> failed · <span id=\"errors\">{}</span> errors · \
         points <span id=\"points\">{}</span>/<span id=\"possible\">{}</span></p>\n",
        esc(&report.subject),
        t.passed,
        report.scenarios.len(),
        t.failed,
        t.errors,
        t.points,
        t.possible
    );
    if let Some(message) = &report.compile_error {
        let _ = write!(
            b,
            "<section class=\"compile\"><h2>The upload did not compile</h2>\n\
             <p>Every scenario fails until it does; the compiler said:</p>\n<pre>{}</pre></section>\n",
            esc(message)
        );
    }
    let (failed, passed): (Vec<&ScenarioRecord>, Vec<&ScenarioRecord>) =
        report.scenarios.iter().partition(|s| !s.passed());
    // Failures that are the build's alone say one thing many times: one
    // line for them all, their names behind a click.
    let (unbuilt, failed): (Vec<&ScenarioRecord>, Vec<&ScenarioRecord>) = failed
        .into_iter()
        .partition(|s| unbuilt(s) && s.boards.is_empty());
    if !failed.is_empty() || !unbuilt.is_empty() {
        let _ = writeln!(
            b,
            "<h2 id=\"failures\">Failed ({})</h2>",
            failed.len() + unbuilt.len()
        );
    }
    for (i, s) in failed.iter().enumerate() {
        let _ = write!(
            b,
            "<section class=\"scenario fail\" id=\"failure-{}\">\n<h3><span class=\"mark\">✗</span> {} \
             <span class=\"pts\">{}/{}</span></h3>\n<p class=\"cause\"><span class=\"class\">{}</span> {}</p>\n{}",
            i + 1,
            esc(&s.name),
            s.earned,
            s.points,
            esc(s.class.as_deref().unwrap_or("failure")),
            esc(&s.message),
            figures(s)
        );
        for note in s.memory_notes() {
            let _ = writeln!(b, "<p class=\"note\">{}</p>", esc(&note));
        }
        let _ = write!(
            b,
            "<details open><summary>the whole failure, as text</summary><pre>{}</pre></details>\n</section>\n",
            esc(&s.details)
        );
    }
    if let Some(first) = unbuilt.first() {
        let names: String = unbuilt
            .iter()
            .map(|s| {
                format!(
                    "<li>{} <span class=\"pts\">{}/{}</span></li>",
                    esc(&s.name),
                    s.earned,
                    s.points
                )
            })
            .collect();
        let _ = write!(
            b,
            "<section class=\"scenario fail unbuilt\">\n<p class=\"cause\"><span class=\"class\">{}</span> \
             {} scenarios not run: {}</p>\n<details><summary>which</summary><ul>{names}</ul></details>\n</section>\n",
            esc(first.class.as_deref().unwrap_or("failure")),
            unbuilt.len(),
            esc(&first.message)
        );
    }
    if !passed.is_empty() {
        let _ = writeln!(
            b,
            "<h2 id=\"passes\">Passed ({})</h2>\n<ul class=\"passes\">",
            passed.len()
        );
        for s in passed {
            let notes: Vec<String> = s.memory_notes().iter().map(|n| esc(n)).collect();
            let noted = match notes.is_empty() {
                true => String::new(),
                false => format!("<br><span class=\"note\">{}</span>", notes.join("; ")),
            };
            let _ = writeln!(
                b,
                "<li><span class=\"mark\">✓</span> {} <span class=\"pts\">{}/{}</span>{noted}</li>",
                esc(&s.name),
                s.earned,
                s.points
            );
        }
        b.push_str("</ul>\n");
    }
    notes(&mut b, std::slice::from_ref(report), false);
    document(&format!("chessgrade: {}", report.subject), &b, None)
}

/// The notes of `reports`, each named by its subject when `named`.
fn notes(b: &mut String, reports: &[Report], named: bool) {
    let notes: Vec<(&str, &String)> = reports
        .iter()
        .flat_map(|r| r.notes.iter().map(move |n| (r.subject.as_str(), n)))
        .collect();
    if notes.is_empty() {
        return;
    }
    b.push_str("<h2>notes</h2>\n<ul class=\"notes\">\n");
    for (subject, n) in notes {
        match named {
            true => {
                let _ = writeln!(b, "<li><b>{}</b>: {}</li>", esc(subject), esc(n));
            }
            false => {
                let _ = writeln!(b, "<li>{}</li>", esc(n));
            }
        }
    }
    b.push_str("</ul>\n");
}

/// The class page for `reports` (one per submission), titled `title`.
pub fn page(title: &str, reports: &[Report]) -> String {
    // Scenario columns: every name, in first-seen order.
    let mut names: Vec<&str> = Vec::new();
    for r in reports {
        for s in &r.scenarios {
            if !names.contains(&s.name.as_str()) {
                names.push(&s.name);
            }
        }
    }
    let (mut passed, mut failed, mut errors, mut points, mut possible) = (0, 0, 0, 0, 0);
    for r in reports {
        let t = r.totals();
        passed += t.passed;
        failed += t.failed;
        errors += t.errors;
        points += t.points;
        possible += t.possible;
    }
    let mut h = String::new();
    let _ = writeln!(h, "<h1>{}</h1>", esc(title));
    let _ = writeln!(
        h,
        "<p class=\"totals\"><span id=\"submissions\">{}</span> submissions · \
         <span id=\"passed\">{passed}</span> passed · <span id=\"failed\">{failed}</span> failed · \
         <span id=\"errors\">{errors}</span> errors · points <span id=\"points\">{points}</span>/<span id=\"possible\">{possible}</span></p>",
        reports.len()
    );
    h.push_str("<p class=\"hint\">Click a column header to sort; click a red cell to see its first mismatch.</p>\n");
    h.push_str("<div class=\"scroll\"><table id=\"results\">\n<thead><tr><th class=\"sort\" data-type=\"text\">submission</th><th class=\"sort\" data-type=\"num\">points</th><th class=\"sort\" data-type=\"num\">failed</th>");
    for (i, name) in names.iter().enumerate() {
        let _ = write!(
            h,
            "<th class=\"sort scen\" data-type=\"num\" title=\"{}\"><span>{}</span></th>",
            esc(name),
            esc(&short(name, i))
        );
    }
    h.push_str("</tr></thead>\n<tbody>\n");
    let mut details = String::new();
    for (ri, r) in reports.iter().enumerate() {
        let t = r.totals();
        let _ = write!(
            h,
            "<tr><td data-sort=\"{}\" class=\"subject\">{}</td><td data-sort=\"{}\">{}/{}</td><td data-sort=\"{}\">{}</td>",
            esc(&r.subject),
            esc(&r.subject),
            t.points,
            t.points,
            t.possible,
            t.failed + t.errors,
            t.failed + t.errors
        );
        for (ci, name) in names.iter().enumerate() {
            let Some(s) = r.scenarios.iter().find(|s| s.name == *name) else {
                h.push_str("<td data-sort=\"-1\" class=\"none\">–</td>");
                continue;
            };
            // A mark says pass or fail whatever the points: a scenario
            // worth 0 reads `0/0` either way (the course's part 1-3
            // configs), and colour alone is no answer.
            let mark = match s.status {
                Status::Pass | Status::Updated => "✓",
                Status::Fail | Status::Error => "✗",
            };
            let text = format!("{mark} {}/{}", s.earned, s.points);
            let notes = s.memory_notes();
            match s.status {
                Status::Pass | Status::Updated if notes.is_empty() => {
                    let _ = write!(
                        h,
                        "<td data-sort=\"{}\" class=\"pass\">{text}</td>",
                        s.earned
                    );
                }
                // Passed, with what a memory check noted (a leak).
                Status::Pass | Status::Updated => {
                    let id = format!("d-{ri}-{ci}");
                    let _ = write!(
                        h,
                        "<td data-sort=\"{}\" class=\"pass noted\"><button type=\"button\" class=\"open\" data-detail=\"{id}\" title=\"{}\">{text}</button></td>",
                        s.earned,
                        esc(&notes.join("\n"))
                    );
                    let _ = write!(
                        details,
                        "<section class=\"detail\" id=\"{id}\" hidden>\n<h2>{} — {}</h2>\n<p class=\"cause\"><span class=\"class\">memcheck</span> {}</p>\n<pre>{}</pre>\n</section>\n",
                        esc(&r.subject),
                        esc(&s.name),
                        esc(&notes.join("; ")),
                        esc(&s.details)
                    );
                }
                Status::Fail | Status::Error => {
                    let id = format!("d-{ri}-{ci}");
                    let _ = write!(
                        h,
                        "<td data-sort=\"{}\" class=\"fail\"><button type=\"button\" class=\"open\" data-detail=\"{id}\" title=\"{}\">{text}</button></td>",
                        s.earned,
                        esc(&s.message)
                    );
                    let _ = write!(
                        details,
                        "<section class=\"detail\" id=\"{id}\" hidden>\n<h2>{} — {}</h2>\n<p class=\"cause\"><span class=\"class\">{}</span> {}</p>\n",
                        esc(&r.subject),
                        esc(&s.name),
                        esc(s.class.as_deref().unwrap_or("failure")),
                        esc(&s.message)
                    );
                    details.push_str(&figures(s));
                    if let Some(message) = r.compile_error.as_ref().filter(|_| unbuilt(s)) {
                        let _ = write!(
                            details,
                            "<p>The compiler said:</p>\n<pre class=\"compile\">{}</pre>\n",
                            esc(message)
                        );
                    }
                    let _ = write!(details, "<pre>{}</pre>\n</section>\n", esc(&s.details));
                }
            }
        }
        h.push_str("</tr>\n");
    }
    h.push_str("</tbody>\n</table></div>\n<div id=\"details\">\n");
    h.push_str(&details);
    h.push_str("</div>\n");
    notes(&mut h, reports, true);
    document(title, &h, Some(JS))
}

/// A column header: the file stem, numbered.
fn short(name: &str, i: usize) -> String {
    let stem = name.rsplit('/').next().unwrap_or(name);
    let stem = stem.strip_suffix(".txt").unwrap_or(stem);
    format!("{} {stem}", i + 1)
}

const CSS: &str = r#"
body{font-family:system-ui,-apple-system,"Segoe UI",sans-serif;margin:1.5em;color:#222;max-width:80em}
h1{font-size:1.4em}h2{font-size:1.15em;margin-top:1.4em}h3{font-size:1.05em;margin:.2em 0 .4em}
.totals{font-size:1.05em}.hint{color:#666;font-size:.9em}
.scroll{overflow-x:auto;max-width:100%}
table#results{border-collapse:collapse;font-size:.85em}
#results th,#results td{border:1px solid #ccc;padding:2px 5px;text-align:center;white-space:nowrap}
#results th.sort{cursor:pointer;background:#f4f4f4}
#results th.sort:hover{background:#e6e6e6}
#results th.scen{vertical-align:bottom;height:11em}
#results th.scen span{writing-mode:vertical-rl;transform:rotate(180deg);font-weight:normal}
#results td.subject{text-align:left;font-weight:bold}
#results td.pass{background:#e3f5e1;color:#225522}
#results td.fail{background:#fbe0de}
#results td.noted{background:#f7f1d0}
#results td.noted button.open{color:#225522}
#results td.none{color:#aaa}
button.open{border:0;background:none;color:#a11;font:inherit;font-weight:bold;cursor:pointer;text-decoration:underline}
th.asc::after{content:" ▲"}th.desc::after{content:" ▼"}
.detail,.scenario.fail,.compile{border:1px solid #d88;border-radius:6px;padding:.5em 1em;margin:1em 0;background:#fffafa}
.compile{border-color:#c33}
.cause .class{font-family:monospace;background:#eee;padding:1px 4px;border-radius:3px}
.mark{font-weight:bold}.fail .mark{color:#b22}.passes .mark{color:#282}
.pts{color:#666;font-weight:normal;font-size:.9em}
.passes{list-style:none;padding-left:.5em;line-height:1.6}
.note{color:#7a5b00}
.boards{display:flex;flex-wrap:wrap;gap:1.5em;align-items:flex-start;margin:.6em 0}
figure.diagram{margin:0}
figcaption{font-weight:bold;margin-bottom:.3em}
svg.board-picture{display:block;max-width:100%;height:auto}
summary{cursor:pointer;color:#555}
pre{background:#f7f7f7;padding:.6em;overflow-x:auto;font-size:.85em}
.step{border-top:1px solid #ddd;padding:.4em 0 .8em}
.step.mismatch{border:1px solid #d88;border-radius:6px;padding:.5em 1em;background:#fffafa}
.step h2{margin:.3em 0}.verdict.ok{color:#282}.verdict.bad{color:#b22}
code.src{background:#f2f2f2;padding:1px 5px;border-radius:3px}
"#;

const JS: &str = r#"
(function(){
  var table=document.getElementById('results');
  table.querySelectorAll('th.sort').forEach(function(th,col){
    th.addEventListener('click',function(){
      var asc=!th.classList.contains('asc');
      table.querySelectorAll('th.sort').forEach(function(o){o.classList.remove('asc','desc');});
      th.classList.add(asc?'asc':'desc');
      var body=table.tBodies[0];
      var rows=Array.prototype.slice.call(body.rows);
      var num=th.dataset.type==='num';
      rows.sort(function(a,b){
        var x=a.cells[col].dataset.sort,y=b.cells[col].dataset.sort;
        var d=num?(parseFloat(x)-parseFloat(y)):x.localeCompare(y);
        return asc?d:-d;
      });
      rows.forEach(function(r){body.appendChild(r);});
    });
  });
  document.querySelectorAll('button.open').forEach(function(b){
    b.addEventListener('click',function(){
      var d=document.getElementById(b.dataset.detail);
      var show=d.hidden;
      document.querySelectorAll('section.detail').forEach(function(s){s.hidden=true;});
      d.hidden=!show;
      if(show){d.scrollIntoView({block:'nearest'});}
    });
  });
})();
"#;

#[cfg(test)]
mod tests {
    use super::*;
    use crate::report::diagram::Coords;
    use crate::report::model::{REPORT_VERSION, ScenarioRecord};

    fn rec(name: &str, status: Status) -> ScenarioRecord {
        let fail = status != Status::Pass;
        ScenarioRecord {
            name: name.into(),
            path: name.into(),
            rules: None,
            points: 1,
            earned: u32::from(!fail),
            visibility: "visible".into(),
            status,
            class: fail.then(|| "wrong_answer".into()),
            line: None,
            step: None,
            message: if fail {
                "bad <move>".into()
            } else {
                String::new()
            },
            details: String::new(),
            elapsed_secs: 0.0,
            boards: if fail {
                vec![
                    Diagram::new(
                        "board before the step",
                        &crate::engine::BoardText("K.".into()),
                        Coords::Numbers,
                    )
                    .with_scan_items(&["  V 0 0 0 1".into()], &[]),
                ]
            } else {
                vec![]
            },
            memory: None,
            changes: Vec::new(),
        }
    }

    #[test]
    fn a_page_has_a_row_per_report_a_cell_per_scenario_and_the_boards() {
        let report = |subject: &str, st| Report {
            chessgrade_report: REPORT_VERSION,
            subject: subject.into(),
            partition: None,
            elapsed_secs: 0.0,
            notes: vec![],
            compile_error: None,
            scenarios: vec![rec("a/x.txt", Status::Pass), rec("a/y.txt", st)],
            run: None,
            changes: Default::default(),
        };
        let h = page(
            "class <1>",
            &[report("alice", Status::Pass), report("bob", Status::Fail)],
        );
        assert!(h.contains("<title>class &lt;1&gt;</title>"));
        assert_eq!(h.matches("<tr><td data-sort=").count(), 2);
        assert_eq!(h.matches("class=\"pass\"").count(), 3);
        assert_eq!(
            h.matches("<button type=\"button\" class=\"open\"").count(),
            1
        );
        assert!(h.contains("<span id=\"failed\">1</span>"));
        assert!(h.contains("title=\"bad &lt;move&gt;\""));
        // The failure's board, as a picture with its caption.
        assert!(h.contains(
            "<figure class=\"diagram\"><figcaption>board before the step</figcaption><svg "
        ));
        assert_eq!(h.matches("<rect class=\"missing\"").count(), 1);
        // No network reference (the SVG namespace is a name, not a fetch).
        let fetched = h.replace("xmlns=\"http://www.w3.org/2000/svg\"", "");
        assert!(!fetched.contains("http"), "no network references");
    }

    #[test]
    fn a_zero_point_cell_says_pass_or_fail_without_colour() {
        let zero = |status| ScenarioRecord {
            points: 0,
            earned: 0,
            ..rec("part1/x.txt", status)
        };
        let report = Report {
            chessgrade_report: REPORT_VERSION,
            subject: "alice".into(),
            partition: None,
            elapsed_secs: 0.0,
            notes: vec![],
            compile_error: None,
            scenarios: vec![zero(Status::Pass), {
                let mut r = zero(Status::Fail);
                r.name = "part1/y.txt".into();
                r
            }],
            run: None,
            changes: Default::default(),
        };
        let h = page("class", &[report]);
        assert!(h.contains("class=\"pass\">✓ 0/0</td>"), "{h}");
        assert!(h.contains(">✗ 0/0</button>"), "{h}");
    }

    #[test]
    fn a_passing_scenario_that_leaked_opens_its_note() {
        use crate::memcheck::{Findings, Leak, Leaks, Tool};
        let mut leaked = rec("a/x.txt", Status::Pass);
        leaked.memory = Some(Findings {
            tool: Tool::Asan,
            error: None,
            errors: 0,
            leaks: Some(Leaks {
                bytes: 48,
                blocks: 3,
                largest: vec![Leak {
                    bytes: 48,
                    blocks: 3,
                    allocated: None,
                }],
            }),
        });
        leaked.details = "PASS a/x.txt".into();
        let report = Report {
            chessgrade_report: REPORT_VERSION,
            subject: "alice".into(),
            partition: None,
            elapsed_secs: 0.0,
            notes: vec![],
            compile_error: None,
            scenarios: vec![leaked],
            run: None,
            changes: Default::default(),
        };
        let h = page("class", &[report]);
        assert!(h.contains("class=\"pass noted\""), "{h}");
        assert!(h.contains(
            "<span class=\"class\">memcheck</span> asan: memory leak: 48 bytes leaked in 3 blocks"
        ));
        assert_eq!(h.matches("<section class=\"detail\"").count(), 1);
    }

    fn one(scenarios: Vec<ScenarioRecord>) -> Report {
        Report {
            chessgrade_report: REPORT_VERSION,
            subject: "student42".into(),
            partition: None,
            elapsed_secs: 0.0,
            notes: vec!["left out main.cc: it defines its own main()".into()],
            compile_error: None,
            changes: Default::default(),
            scenarios,
            run: None,
        }
    }

    #[test]
    fn a_students_page_shows_each_failure_with_its_boards_then_the_passes() {
        let r = one(vec![
            rec("a/pass1.txt", Status::Pass),
            rec("a/fail1.txt", Status::Fail),
            rec("a/pass2.txt", Status::Pass),
            rec("a/fail2.txt", Status::Fail),
        ]);
        let h = student_page(&r);
        assert!(h.contains("<title>chessgrade: student42</title>"), "{h}");
        assert!(h.contains("<span id=\"passed\">2</span> of <span id=\"scenarios\">4</span>"));
        let at = |what: &str| h.find(what).unwrap_or_else(|| panic!("{what} in {h}"));
        // Failures first, in the report's order, each with its picture shown.
        assert!(at("Failed (2)") < at("a/fail1.txt"));
        assert!(at("a/fail1.txt") < at("a/fail2.txt"));
        assert!(at("a/fail2.txt") < at("Passed (2)"));
        assert!(at("Passed (2)") < at("a/pass1.txt"));
        assert_eq!(h.matches("<section class=\"scenario fail\"").count(), 2);
        assert_eq!(h.matches("<figure class=\"diagram\">").count(), 2);
        assert!(!h.contains(" hidden"), "nothing behind a click");
        assert!(!h.contains("<script"), "no script");
        assert!(h.contains("<li>left out main.cc: it defines its own main()</li>"));
        assert!(!h.contains("The upload did not compile"));
    }

    #[test]
    fn an_upload_that_did_not_compile_shows_the_compiler_first_and_its_scenarios_once() {
        let unbuilt = |name: &str| ScenarioRecord {
            class: Some("compile_error".into()),
            message: "compile error".into(),
            boards: vec![],
            ..rec(name, Status::Fail)
        };
        let mut r = one(vec![unbuilt("a/x.txt"), unbuilt("a/y.txt")]);
        r.compile_error = Some("Board.cc:3:1: error: expected ';' before '<'".into());
        let h = student_page(&r);
        let at = |what: &str| h.find(what).unwrap_or_else(|| panic!("{what} in {h}"));
        assert!(at("The upload did not compile") < at("Failed (2)"));
        assert!(h.contains(
            "<pre>Board.cc:3:1: error: expected &#39;;&#39; before &#39;&lt;&#39;</pre>"
        ));
        assert!(h.contains("2 scenarios not run: compile error"), "{h}");
        assert_eq!(
            h.matches("<section class=\"scenario fail unbuilt\">")
                .count(),
            1
        );
        // The class page's drill-down shows the compiler's message too.
        let class = page("class", &[r]);
        assert_eq!(
            class.matches("<pre class=\"compile\">Board.cc:3:1").count(),
            2
        );
    }

    #[test]
    fn what_a_submission_wrote_is_escaped_on_every_page() {
        let hostile = "<script>alert(1)</script> ]]> \"q\" 'a' \u{1b}[2J \u{202e}rtl";
        let lossy = String::from_utf8_lossy(b"bad \xff\xfe utf-8").into_owned();
        let mut s = rec("a/<img src=x onerror=alert(1)>.txt", Status::Fail);
        s.message = hostile.into();
        s.details = format!("stderr: {hostile}\n{lossy}");
        s.boards[0].title = hostile.into();
        let mut r = one(vec![s]);
        r.subject = hostile.into();
        r.notes = vec![hostile.into()];
        r.compile_error = Some(hostile.into());
        for h in [student_page(&r), page(hostile, &[r.clone()])] {
            assert!(!h.contains("<script>alert"), "{h}");
            assert!(!h.contains("<img"), "{h}");
            assert!(!h.contains('\u{1b}') && !h.contains('\u{202e}'), "{h}");
            assert!(h.contains("&lt;script&gt;alert(1)&lt;/script&gt; ]]&gt; &quot;q&quot; &#39;a&#39; \\x1b[2J \\u{202e}rtl"));
            assert!(h.contains("bad \u{fffd}\u{fffd} utf-8"));
        }
    }
}
