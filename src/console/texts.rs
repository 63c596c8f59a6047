//! The dialects' texts as data: every prompt, command and message the
//! course programs print, read from `texts.json` (embedded; staff may pass
//! their own copy with `--console-texts FILE`). Defaults come from the
//! seeds and the courses' starter code (docs/console.md says where each
//! comes from).

use serde::Deserialize;
use std::path::Path;

/// The embedded defaults.
pub const DEFAULT_TEXTS: &str = include_str!("texts.json");

#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Texts {
    pub jhu: JhuTexts,
    pub cuhk: CuhkTexts,
}

/// JHU CS220's `./chess` (starter `main.cpp`, seed 002).
#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct JhuTexts {
    pub prompt: String,
    /// Commands; `{file}` / `{move}` are filled in.
    pub load: String,
    pub save: String,
    #[serde(rename = "move")]
    pub move_: String,
    pub quit: String,
    /// `{reason}` is the refusal's message.
    pub refusal: String,
    pub white_turn: String,
    pub black_turn: String,
    /// `{points}` is the side to move's material.
    pub material: String,
    pub check: String,
    pub checkmate: String,
    pub stalemate: String,
    /// Does a saved game end with a newline after `w`/`b`? (The starter's
    /// `operator<<` writes none.)
    pub save_ends_with_newline: bool,
    pub exit_status: i32,
    pub ignore_trailing_space: bool,
    /// The binary the build must make.
    pub binary: String,
    /// g++ flags when the upload has no Makefile.
    pub cxx_flags: Vec<String>,
}

/// CUHK CSCI1120's console game (seed 000 and the course's provided code).
#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct CuhkTexts {
    pub mode_prompt: String,
    /// The answer to the mode prompt (1: human vs human).
    pub mode: String,
    /// The answer for human (White) against machine (Black).
    #[serde(default = "mode_2")]
    pub mode_human_vs_machine: String,
    /// The answer for machine against machine.
    #[serde(default = "mode_3")]
    pub mode_machine_vs_machine: String,
    /// `{n}` is the round number (one per move).
    pub round: String,
    /// `{side}` is `white` or `black` below.
    pub turn_prompt: String,
    pub white: String,
    pub black: String,
    pub invalid: String,
    pub stop: String,
    pub white_wins: String,
    pub black_wins: String,
    pub draw: String,
    pub board_header: String,
    pub board_separator: String,
    pub cell_separator: String,
    pub row_end: String,
    pub empty_cell: String,
    /// White's labels print in lower case, Black's in upper case.
    pub white_lower_case: bool,
    pub exit_status: i32,
    pub ignore_trailing_space: bool,
    pub binary: String,
    pub cxx_flags: Vec<String>,
}

impl Default for Texts {
    fn default() -> Self {
        serde_json::from_str(DEFAULT_TEXTS).expect("the embedded texts.json is valid")
    }
}

impl Texts {
    /// Reads a staff copy of `texts.json`.
    pub fn load(path: &Path) -> Result<Texts, String> {
        let text = std::fs::read_to_string(path).map_err(|e| format!("{}: {e}", path.display()))?;
        serde_json::from_str(&text).map_err(|e| format!("{}: {e}", path.display()))
    }
}

fn mode_2() -> String {
    "2".into()
}

fn mode_3() -> String {
    "3".into()
}

/// Fills `{key}` in a text.
pub(crate) fn fill(template: &str, key: &str, value: &str) -> String {
    template.replace(&format!("{{{key}}}"), value)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn embedded_texts_parse_and_hold_the_courses_prompts() {
        let t = Texts::default();
        assert_eq!(t.jhu.prompt, "Next command: ");
        assert_eq!(t.cuhk.mode_prompt, "Choose game mode (1, 2, 3): ");
        assert_eq!(
            fill(&t.jhu.refusal, "reason", "x"),
            "Could not make move: x"
        );
    }
}
