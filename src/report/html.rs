//! The HTML report: one self-contained page (inline CSS and JavaScript, no
//! network, no external fonts) for a batch or a whole class. A table has a
//! row per submission and a column per scenario with the points earned;
//! columns sort on a click; a failing cell opens its first mismatch — the
//! one-line cause, the full explanation, and the board diagrams drawn as
//! tables with the marked squares coloured and labelled. Everything shown
//! comes from the [`Report`]s: the page computes nothing but sort orders.

use super::diagram::Diagram;
use super::model::{Report, Status};
use std::fmt::Write;

/// The page for `reports` (one per submission), titled `title`.
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
    let _ = write!(
        h,
        "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n\
         <meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n\
         <title>{}</title>\n<style>{CSS}</style>\n</head>\n<body>\n<h1>{}</h1>\n",
        esc(title),
        esc(title)
    );
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
                    if !s.boards.is_empty() {
                        details.push_str("<div class=\"boards\">");
                        for d in &s.boards {
                            details.push_str(&board(d));
                        }
                        details.push_str("</div>\n");
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
    let notes: Vec<(&str, &String)> = reports
        .iter()
        .flat_map(|r| r.notes.iter().map(move |n| (r.subject.as_str(), n)))
        .collect();
    if !notes.is_empty() {
        h.push_str("<h2>notes</h2>\n<ul class=\"notes\">\n");
        for (subject, n) in notes {
            let _ = writeln!(h, "<li><b>{}</b>: {}</li>", esc(subject), esc(n));
        }
        h.push_str("</ul>\n");
    }
    let _ = write!(h, "<script>{JS}</script>\n</body>\n</html>\n");
    h
}

/// A board diagram as a table: coordinates on the edges, marked squares
/// with a class (colour) and their symbol (for print and colour-blind
/// readers), a legend below. Cropped as the terminal's is, to 32x32.
pub fn board(d: &Diagram) -> String {
    let (rows, cols) = d.window(32, 32);
    let (row_labels, col_labels) = d.labels(rows, cols);
    let cells = d.rows();
    let mut h = format!(
        "<figure class=\"diagram\"><figcaption>{}</figcaption><table class=\"board\"><tr><th></th>",
        esc(&d.title)
    );
    for l in &col_labels {
        let _ = write!(h, "<th>{}</th>", esc(l));
    }
    h.push_str("</tr>");
    for (i, r) in (rows.start..rows.end).enumerate() {
        let _ = write!(h, "<tr><th>{}</th>", esc(&row_labels[i]));
        for c in cols.start..cols.end {
            let ch = cells[r].get(c).copied().unwrap_or(' ');
            let dark = if (r + c) % 2 == 1 { " dark" } else { "" };
            match d.mark_at(r, c) {
                Some(m) => {
                    let _ = write!(
                        h,
                        "<td class=\"{}{dark}\" title=\"{}\"><i>{}</i>{}</td>",
                        m.class(),
                        m.meaning(),
                        m.symbol(),
                        esc(&d.coords.symbol(ch).to_string())
                    );
                }
                None => {
                    let _ = write!(
                        h,
                        "<td class=\"sq{dark}\">{}</td>",
                        esc(&d.coords.symbol(ch).to_string())
                    );
                }
            }
        }
        h.push_str("</tr>");
    }
    h.push_str("</table>");
    let mut used: Vec<_> = d.marks.iter().map(|(_, m)| *m).collect();
    used.sort();
    used.dedup();
    if !used.is_empty() {
        h.push_str("<p class=\"legend\">");
        for m in used {
            let _ = write!(
                h,
                "<span class=\"{}\"><i>{}</i> {}</span> ",
                m.class(),
                m.symbol(),
                m.meaning()
            );
        }
        h.push_str("</p>");
    }
    h.push_str("</figure>");
    h
}

/// A column header: the file stem, numbered.
fn short(name: &str, i: usize) -> String {
    let stem = name.rsplit('/').next().unwrap_or(name);
    let stem = stem.strip_suffix(".txt").unwrap_or(stem);
    format!("{} {stem}", i + 1)
}

/// Escapes text for HTML content and attribute values.
pub fn esc(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for c in s.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&#39;"),
            c => out.push(c),
        }
    }
    out
}

const CSS: &str = r#"
body{font-family:system-ui,-apple-system,"Segoe UI",sans-serif;margin:1.5em;color:#222}
h1{font-size:1.4em}h2{font-size:1.1em}
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
.detail{border:1px solid #d88;border-radius:6px;padding:.5em 1em;margin:1em 0;background:#fffafa}
.cause .class{font-family:monospace;background:#eee;padding:1px 4px;border-radius:3px}
.boards{display:flex;flex-wrap:wrap;gap:1.5em}
figure.diagram{margin:0}
figcaption{font-weight:bold;margin-bottom:.3em}
table.board{border-collapse:collapse;font-size:1.3em}
table.board th{font-size:.6em;color:#555;padding:0 4px;font-weight:normal}
table.board td{width:1.6em;height:1.6em;text-align:center;background:#f0d9b5;position:relative}
table.board td.dark{background:#b58863}
table.board td i{position:absolute;top:0;left:2px;font-size:.55em;font-style:normal;font-weight:bold}
td.missing,.legend .missing i{background:#7ccd7c!important}
td.extra,.legend .extra i{background:#f08080!important}
td.from,.legend .from i{background:#f5d76e!important}
td.differs,.legend .differs i{background:#d8a0e0!important}
.legend{font-size:.85em}.legend i{font-style:normal;padding:0 4px;margin-right:2px}
pre{background:#f7f7f7;padding:.6em;overflow-x:auto;font-size:.85em}
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
        assert!(h.contains(
            "<td class=\"missing dark\" title=\"expected, not answered\"><i>+</i>·</td>"
        ));
        assert!(!h.contains("http"), "no network references");
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
}
