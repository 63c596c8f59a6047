//! `cargo bench --bench gen`: generating 1,000 scenarios (setups, biased
//! play, rendering, parsing back and replaying for the snapshots) against
//! its peer measured in the same run, parsing the same 1,000 files, so the
//! figure is a ratio that machine noise hits alike. The absolute time of
//! the generation is printed too: the issue asks for under a second. The
//! four built-in sets, and a rule file's (Capablanca chess: 10x8, two
//! pieces of its own), parsed under its rules as `run` parses them.

use chessgrade::engine::RuleSetId;
use chessgrade::r#gen::{self as suite_gen, GenOptions};
use chessgrade::rulefile::{self, Resolved, RuleBook};
use chessgrade::scenario;
use std::hint::black_box;
use std::path::Path;
use std::time::{Duration, Instant};

fn median(mut v: Vec<Duration>) -> Duration {
    v.sort();
    v[v.len() / 2]
}

fn main() {
    let capablanca =
        Path::new(env!("CARGO_MANIFEST_DIR")).join("scenarios/variants/capablanca.toml");
    let capablanca = rulefile::load(&capablanca).expect("the shipped rule file reads");
    let sets = RuleSetId::ALL
        .map(RuleSetId::rules)
        .into_iter()
        .chain([capablanca]);
    for rules in sets {
        let book = RuleBook::fixed(Resolved { rules, file: None });
        let opts = GenOptions::new(rules, 1000, 42);
        let suite = suite_gen::generate(&opts).expect("generates");
        let texts: Vec<String> = suite.scenarios.iter().map(|g| g.text.clone()).collect();
        let (mut gen_times, mut parse_times) = (Vec::new(), Vec::new());
        for _ in 0..5 {
            let t = Instant::now();
            black_box(suite_gen::generate(&opts).expect("generates"));
            gen_times.push(t.elapsed());
            let t = Instant::now();
            for text in &texts {
                black_box(scenario::parse_with(text, &book.for_text()).expect("parses"));
            }
            parse_times.push(t.elapsed());
        }
        let (g, p) = (median(gen_times), median(parse_times));
        println!(
            "{:<10} gen 1000 scenarios {:>9.1?}   parse the same 1000 files {:>9.1?}   ratio {:>6.1}x   ({} steps)",
            rules.name,
            g,
            p,
            g.as_secs_f64() / p.as_secs_f64(),
            suite.coverage.steps
        );
    }
}
