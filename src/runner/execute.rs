//! Driving a subject through a scenario's steps and recording its trace.

use crate::engine::BoardText;
use crate::scenario::{Scenario, StepKind};
use crate::subject::{Setup, Subject, SubjectError};
use crate::trace::{Entry, Outcome, Trace};

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
    let initial_board = match subject
        .setup(&Setup::of(scenario))
        .and_then(|()| subject.board())
    {
        Ok(board) => board,
        Err(error) => {
            return Execution {
                trace: Trace::new(scenario.dims, BoardText(String::new())),
                failure: Some(StepFailure { line: None, error }),
            };
        }
    };
    let mut trace = Trace::new(scenario.dims, initial_board);
    for step in &scenario.steps {
        match run_step(subject, &step.kind) {
            Ok((outcome, board_after)) => trace.entries.push(Entry {
                line: step.line,
                step: step.kind.clone(),
                outcome,
                board_after,
            }),
            Err(error) => {
                return Execution {
                    trace,
                    failure: Some(StepFailure {
                        line: Some(step.line),
                        error,
                    }),
                };
            }
        }
    }
    trace.complete = true;
    Execution {
        trace,
        failure: None,
    }
}

fn run_step(
    subject: &mut dyn Subject,
    step: &StepKind,
) -> Result<(Outcome, BoardText), SubjectError> {
    let outcome = match step {
        StepKind::MovePiece { from, to } => Outcome::Moved(subject.move_piece(*from, *to)?),
        StepKind::IsValidScan => Outcome::ValidMoves(subject.valid_scan()?),
        StepKind::UnderThreatScan => Outcome::Threatened(subject.threat_scan()?),
        StepKind::Move {
            from,
            to,
            promotion,
            ..
        } => Outcome::Played(subject.play(*from, *to, *promotion)?),
        StepKind::Perft { depth } => Outcome::Count(subject.perft(*depth)?),
        StepKind::Divide { depth } => Outcome::Divide(subject.divide(*depth)?),
        StepKind::Undo => Outcome::Moved(subject.undo()?),
        StepKind::Redo => Outcome::Moved(subject.redo()?),
        StepKind::Status => Outcome::Status(subject.status()?),
        StepKind::Stop { .. } => Outcome::Status(subject.stop()?),
        StepKind::Score => Outcome::Score(subject.score()?),
        StepKind::Machine { seed } => Outcome::Machine(subject.machine(*seed)?),
        StepKind::Save => Outcome::Saved(subject.save()?),
    };
    Ok((outcome, subject.board()?))
}
