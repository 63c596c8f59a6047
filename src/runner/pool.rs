//! Running many scenarios on a pool of threads. Each worker owns its own
//! subject (for submissions: one fresh process per scenario, started by the
//! subject's setup); results are handed back in discovery order as soon as
//! every earlier one is done, so reports stream in a stable order. With
//! `fail_fast`, workers take no new scenario once one has failed; those
//! already started finish, so the results are always a prefix of `found`.

use super::{Found, ScenarioResult, SnapshotMode, run_one};
use crate::snapshot::SnapshotStore;
use crate::subject::Subject;
use std::collections::BTreeMap;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::mpsc;

/// Runs every scenario of `found` with up to `jobs` in parallel; calls
/// `on_result` for each result in order; returns them all in order.
pub fn run_all(
    found: &[Found],
    jobs: usize,
    make_subject: &(dyn Fn() -> Box<dyn Subject> + Sync),
    store: &SnapshotStore,
    mode: SnapshotMode,
    on_result: impl FnMut(&ScenarioResult),
) -> Vec<ScenarioResult> {
    run_all_until(found, jobs, make_subject, store, mode, false, on_result)
}

/// [`run_all`], stopping early after the first failure when `fail_fast`:
/// the results are then a prefix of `found` (every scenario started is
/// finished and reported).
pub fn run_all_until(
    found: &[Found],
    jobs: usize,
    make_subject: &(dyn Fn() -> Box<dyn Subject> + Sync),
    store: &SnapshotStore,
    mode: SnapshotMode,
    fail_fast: bool,
    on_result: impl FnMut(&ScenarioResult),
) -> Vec<ScenarioResult> {
    run_pool(
        found,
        jobs,
        make_subject,
        |subject, f| super::guarded(|| run_one(f, subject.as_mut(), store, mode)),
        fail_fast,
        on_result,
    )
}

/// Runs `run` on every scenario of `found` with up to `jobs` in parallel,
/// each worker holding one `init()` state (a subject, or nothing); results
/// are handed to `on_result` in discovery order. With `fail_fast`, no new
/// scenario starts after a failure (the results are a prefix of `found`).
pub fn run_pool<S>(
    found: &[Found],
    jobs: usize,
    init: &(dyn Fn() -> S + Sync),
    run: impl Fn(&mut S, &Found) -> ScenarioResult + Sync,
    fail_fast: bool,
    mut on_result: impl FnMut(&ScenarioResult),
) -> Vec<ScenarioResult> {
    let run = &run;
    let next = AtomicUsize::new(0);
    let stop = AtomicBool::new(false);
    let (tx, rx) = mpsc::channel::<(usize, ScenarioResult)>();
    let mut results = Vec::with_capacity(found.len());
    std::thread::scope(|scope| {
        for _ in 0..jobs.clamp(1, found.len().max(1)) {
            let tx = tx.clone();
            let next = &next;
            let stop = &stop;
            scope.spawn(move || {
                let mut state = init();
                loop {
                    if stop.load(Ordering::SeqCst) {
                        break;
                    }
                    let i = next.fetch_add(1, Ordering::SeqCst);
                    let Some(f) = found.get(i) else { break };
                    let result = run(&mut state, f);
                    if fail_fast && result.is_failure() {
                        stop.store(true, Ordering::SeqCst);
                    }
                    if tx.send((i, result)).is_err() {
                        break;
                    }
                }
            });
        }
        drop(tx);
        let mut pending = BTreeMap::new();
        for (i, result) in rx {
            pending.insert(i, result);
            while let Some(result) = pending.remove(&results.len()) {
                on_result(&result);
                results.push(result);
            }
        }
    });
    results
}
