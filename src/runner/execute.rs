//! Driving a subject through a scenario's steps and recording its trace.

use crate::engine::BoardText;
use crate::scenario::Scenario;
use crate::subject::{Setup, Subject, SubjectError};
use crate::trace::{Entry, Trace};

/// The trace a subject produced; on failure, the steps it finished.
#[derive(Clone, Debug)]
pub struct Execution {
    pub trace: Trace,
    pub failure: Option<StepFailure>,
}

/// Where and how a subject failed.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct StepFailure {
    /// The scenario line of the step; `None` during the setup.
    pub line: Option<u32>,
    pub error: SubjectError,
}

pub fn execute(scenario: &Scenario, subject: &mut dyn Subject) -> Execution {
    let (initial_board, run) = match subject.run_scenario(&Setup::of(scenario), &scenario.steps) {
        Ok(started) => started,
        Err(error) => {
            return Execution {
                trace: Trace::new(scenario.dims, BoardText(String::new())),
                failure: Some(StepFailure { line: None, error }),
            };
        }
    };
    let mut trace = Trace::new(scenario.dims, initial_board);
    for (step, (outcome, board_after)) in scenario.steps.iter().zip(run.done) {
        trace.entries.push(Entry {
            line: step.line,
            step: step.kind.clone(),
            outcome,
            board_after,
        });
    }
    if let Some((i, error)) = run.failure {
        return Execution {
            trace,
            failure: Some(StepFailure {
                line: scenario.steps.get(i).map(|s| s.line),
                error,
            }),
        };
    }
    trace.complete = true;
    Execution {
        trace,
        failure: None,
    }
}
