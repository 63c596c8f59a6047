//! `explain --format html`: the same walk as the terminal's, as one
//! self-contained page a student opens in a browser. Each step (a console
//! program: each command) is a section with its verdict and its boards as
//! pictures ([`crate::report::picture`]): the board before with a scan's
//! missing and extra squares marked and a move's arrow, the board after,
//! the expected board where the answered one differs. Every step is on
//! the page (`--line`: one), the first mismatch marked in the list of
//! links at the top and on its section, so a student walks the whole
//! scenario, before and after it.
//!
//! It draws what the explanation holds (the walk computed it) and the
//! same boards as the terminal ([`step_boards`], and the console
//! renderer's parts), so the two never disagree; every text is escaped
//! ([`sanitize::html`]).

use super::console::{
    ConsoleExplanation, board_after_mismatch, command_board, command_body, command_verdict,
    failure_of, judged, mismatch_body, mismatch_place, sent, verdict_line,
};
use super::render::{NoSuchLine, step_boards, translate};
use super::{Explanation, RenderOptions, StepVerdict, StepView};
use crate::report::diagram::failure_diagrams;
use crate::report::html::{document, figure};
use crate::report::sanitize::html as esc;
use crate::report::{Coords, Diagram, Palette, Style};
use std::fmt::Write;

/// The page's frame: its title, the lines above the walk (what is
/// expected, what is explained), the links to each step.
pub struct Heading<'a> {
    pub title: &'a str,
    pub intro: &'a [String],
}

/// A link to a step: its anchor, its words, whether it is the mismatch.
struct Link {
    anchor: String,
    text: String,
    bad: bool,
}

fn start(h: &Heading, links: &[Link]) -> String {
    let mut b = format!("<h1>{}</h1>\n", esc(h.title));
    for line in h.intro {
        let _ = writeln!(b, "<p class=\"intro\">{}</p>", esc(line));
    }
    if !links.is_empty() {
        b.push_str("<nav class=\"walk\"><b>steps:</b> ");
        let all: Vec<String> = links
            .iter()
            .map(|l| {
                let class = if l.bad { " class=\"bad\"" } else { "" };
                format!("<a href=\"#{}\"{class}>{}</a>", l.anchor, esc(&l.text))
            })
            .collect();
        b.push_str(&all.join(" · "));
        b.push_str("</nav>\n");
    }
    b
}

/// A diagram captioned `label`.
fn captioned(label: &str, mut d: Diagram) -> String {
    d.title = label.to_string();
    figure(&d)
}

/// Text laid out for the terminal's indent, as a page's preformatted
/// block: the indent all its lines share taken off, escaped.
fn pre(text: &str) -> String {
    let indent = text
        .lines()
        .filter(|l| !l.trim().is_empty())
        .map(|l| l.len() - l.trim_start_matches(' ').len())
        .min()
        .unwrap_or(0);
    let lines: Vec<&str> = text
        .trim_end()
        .lines()
        .map(|l| l.get(indent..).unwrap_or(l.trim_start_matches(' ')))
        .collect();
    format!("<pre>{}</pre>", esc(&lines.join("\n")))
}

fn boards(figures: &[String]) -> String {
    match figures.is_empty() {
        true => String::new(),
        false => format!("<div class=\"boards\">{}</div>\n", figures.concat()),
    }
}

/// A scenario's walk as a page. `Err` names a `--line` that holds no step.
pub fn render_html(
    e: &Explanation,
    heading: &Heading,
    opts: RenderOptions,
) -> Result<String, NoSuchLine> {
    let coords = Coords::of(e.rules);
    let opts = RenderOptions { all: true, ..opts };
    let steps = super::render::shown_steps(e, opts)?;
    let first = e.first_mismatch().map(|m| m.line);
    let mut links: Vec<Link> = Vec::new();
    if opts.line.is_none() {
        links.push(Link {
            anchor: "setup".into(),
            text: "setup".into(),
            bad: false,
        });
    }
    links.extend(steps.iter().map(|s| Link {
        anchor: format!("line-{}", s.line),
        text: format!(
            "{} {}",
            s.line,
            if s.verdict == StepVerdict::Match {
                "✓"
            } else {
                "✗"
            }
        ),
        bad: Some(s.line) == first,
    }));
    let mut b = start(heading, &links);
    if opts.line.is_none() {
        b.push_str("<section class=\"step\" id=\"setup\"><h2>the setup</h2>\n");
        if e.initial.as_str().is_empty() {
            b.push_str("<p>(none: the subject failed during the setup)</p>\n");
        } else {
            b.push_str(&boards(&[figure(&Diagram::new(
                "board after the setup",
                &e.initial,
                coords,
            ))]));
        }
        if let Some(f) = e.failure.as_ref().filter(|f| f.line.is_none()) {
            let _ = writeln!(
                b,
                "<p class=\"verdict bad\">{}</p>",
                esc(&f.error.to_string())
            );
        }
        b.push_str("</section>\n");
    }
    for s in &steps {
        step(&mut b, s, coords, Some(s.line) == first);
    }
    if let Some(m) = &e.memory {
        memory(&mut b, &m.findings);
    }
    let (text, bad) = match (e.first_mismatch(), e.failing_memory_error()) {
        (Some(m), _) => (format!("first mismatch at line {}", m.line), true),
        (None, Some(_)) => (
            "every step matches, but a memory error fails the scenario".into(),
            true,
        ),
        (None, None) => ("every step matches".into(), false),
    };
    verdict(&mut b, &text, bad, first.map(|l| format!("line-{l}")));
    Ok(document(heading.title, &b, None))
}

/// One step: its line, verdict, what differs, its boards.
fn step(b: &mut String, s: &StepView, coords: Coords, first: bool) {
    let (verdict, bad) = match &s.verdict {
        StepVerdict::Match => ("ok".to_string(), false),
        StepVerdict::Scan { missing, extra } => (
            format!("MISMATCH: {} missing, {} extra", missing.len(), extra.len()),
            true,
        ),
        StepVerdict::Differs { .. } => ("MISMATCH".to_string(), true),
        StepVerdict::Failed(why) => (format!("FAILED: {why}"), true),
    };
    let _ = writeln!(
        b,
        "<section class=\"step{}\" id=\"line-{}\"><h2>line {}: <code class=\"src\">{}</code> \
         <span class=\"verdict {}\">{}</span>{}</h2>",
        if first { " mismatch" } else { "" },
        s.line,
        s.line,
        esc(s.source.trim()),
        if bad { "bad" } else { "ok" },
        esc(&verdict),
        if first {
            " <span class=\"first\">(the first mismatch)</span>"
        } else {
            ""
        }
    );
    let rows = s.before.rows().count();
    match &s.verdict {
        StepVerdict::Match => {
            if let Some(h) = &s.actual_header {
                let _ = writeln!(
                    b,
                    "<p>answered: <code>{}</code></p>",
                    esc(&super::render::result_of(h))
                );
            }
        }
        StepVerdict::Scan { missing, extra } => {
            for (title, items) in [
                ("missing (expected, not answered)", missing),
                ("extra (answered, not expected)", extra),
            ] {
                if !items.is_empty() {
                    let list: Vec<String> = items
                        .iter()
                        .map(|i| format!("<code>{}</code>", esc(&translate(i, coords, rows))))
                        .collect();
                    let _ = writeln!(b, "<p>{title}: {}</p>", list.join(", "));
                }
            }
        }
        StepVerdict::Differs { expected, actual } => {
            let trimmed = |l: &[String]| l.iter().map(|x| x.trim()).collect::<Vec<_>>().join("\n");
            let _ = writeln!(
                b,
                "<p>expected:</p><pre>{}</pre><p>answered:</p><pre>{}</pre>",
                esc(&trimmed(expected)),
                esc(&trimmed(actual))
            );
        }
        StepVerdict::Failed(_) => {}
    }
    let figures: Vec<String> = step_boards(s, coords)
        .into_iter()
        .map(|(label, d)| captioned(label, d))
        .collect();
    b.push_str(&boards(&figures));
    b.push_str("</section>\n");
}

fn memory(b: &mut String, findings: &crate::memcheck::Findings) {
    let tool = findings.tool.name();
    for note in findings.notes() {
        let _ = writeln!(b, "<p class=\"note\">memcheck ({tool}): {}</p>", esc(&note));
    }
    if findings.is_clean() {
        let _ = writeln!(
            b,
            "<p class=\"note\">memcheck ({tool}): no memory error, no leak</p>"
        );
    }
}

fn verdict(b: &mut String, text: &str, bad: bool, anchor: Option<String>) {
    let text = match anchor {
        Some(a) if bad => format!("<a href=\"#{a}\">{}</a>", esc(text)),
        _ => esc(text),
    };
    let _ = writeln!(
        b,
        "<p class=\"verdict {}\"><b>{text}</b></p>",
        if bad { "bad" } else { "ok" }
    );
}

/// A console program's walk as a page, command by command. `Err` names a
/// `--line` that sends no command.
pub fn render_console_html(
    e: &ConsoleExplanation,
    heading: &Heading,
    opts: RenderOptions,
) -> Result<String, NoSuchLine> {
    let coords = Coords::of(e.rules);
    let opts = RenderOptions { all: true, ..opts };
    let plain = Style {
        palette: Palette::PLAIN,
        ..opts.style
    };
    let p = Palette::PLAIN;
    let first = e.mismatch.as_ref().and_then(|m| m.exchange);
    let shown = super::console::shown_commands(e, opts)?;
    let links: Vec<Link> = shown
        .iter()
        .map(|&k| {
            let c = &e.commands[k];
            Link {
                anchor: format!("command-{}", k + 1),
                text: match c.line {
                    Some(l) => format!("{l} {}", if c.agrees { "✓" } else { "✗" }),
                    None => c.place.split(':').next().unwrap_or("setup").to_string(),
                },
                bad: Some(k) == first,
            }
        })
        .collect();
    let mut b = start(heading, if e.machine { &[] } else { &links });
    if opts.line.is_none() {
        let _ = writeln!(b, "<p>judged: {}</p>", esc(judged(e)));
        for (name, text) in &e.files {
            let _ = writeln!(
                b,
                "<p>written before the start: <code>{}</code></p><pre>{}</pre>",
                esc(name),
                esc(text)
            );
        }
        if !e.args.is_empty() {
            let _ = writeln!(
                b,
                "<p>the program's arguments: <code>{}</code></p>",
                esc(&e.args.join(" "))
            );
        }
    }
    let mut last_board = None;
    for &k in &shown {
        let c = &e.commands[k];
        let anchor = format!("command-{}", k + 1);
        if e.machine {
            let _ = writeln!(
                b,
                "<section class=\"step\" id=\"{anchor}\"><h2>{}</h2><p>input sent: <code>{}</code></p></section>",
                esc(&c.place),
                esc(&sent(c, p))
            );
        } else if Some(k) == first {
            console_mismatch(&mut b, e, Some(c), &anchor, coords, plain);
        } else {
            let verdict = command_verdict(c, p);
            let mut body = String::new();
            command_body(&mut body, c, e.dialect, p);
            let _ = write!(
                b,
                "<section class=\"step\" id=\"{anchor}\"><h2>{} <span class=\"verdict {}\">{}</span></h2>\n{}\n",
                esc(&c.place),
                if c.agrees { "ok" } else { "bad" },
                esc(&verdict),
                pre(&body)
            );
            match command_board(c, last_board, coords, &e.source) {
                Ok(d) => b.push_str(&boards(&[figure(&d)])),
                Err(said) => {
                    let _ = writeln!(b, "<p>{}</p>", esc(&said));
                }
            }
            b.push_str("</section>\n");
            last_board = Some(&c.board_after);
        }
    }
    if opts.line.is_none() {
        if e.machine {
            let _ = writeln!(
                b,
                "<h2>the program's output</h2><pre>{}</pre>",
                esc(&e.output)
            );
        }
        if first.is_none() && e.mismatch.is_some() {
            console_mismatch(&mut b, e, None, "mismatch", coords, plain);
        }
    }
    if let Some(m) = &e.memory {
        memory(&mut b, m);
    }
    let anchor = match (first, &e.mismatch) {
        (Some(k), _) => Some(format!("command-{}", k + 1)),
        (None, Some(_)) => Some("mismatch".to_string()),
        _ => None,
    };
    verdict(&mut b, &verdict_line(e, p), e.fails(), anchor);
    Ok(document(heading.title, &b, None))
}

/// The first mismatch: `grade`'s block as text, its boards as pictures.
fn console_mismatch(
    b: &mut String,
    e: &ConsoleExplanation,
    c: Option<&super::console::CommandView>,
    anchor: &str,
    coords: Coords,
    style: Style,
) {
    let Some(m) = &e.mismatch else {
        return;
    };
    let mut body = String::new();
    mismatch_body(&mut body, e, m, c, style, false);
    let _ = write!(
        b,
        "<section class=\"step mismatch\" id=\"{anchor}\"><h2>{} <span class=\"verdict bad\">MISMATCH</span> \
         <span class=\"first\">(the first mismatch)</span></h2>\n{}\n",
        esc(&mismatch_place(m, c)),
        pre(&body)
    );
    let mut figures: Vec<String> = failure_diagrams(&failure_of(e, m))
        .iter()
        .map(figure)
        .collect();
    if let Some(d) = c.and_then(|c| board_after_mismatch(e, m, c, coords)) {
        figures.push(figure(&d));
    }
    b.push_str(&boards(&figures));
    b.push_str("</section>\n");
}
