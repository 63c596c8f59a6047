//! The dialects' texts as data: every prompt, command and message the
//! course programs print, read from `texts.json` (embedded; staff may pass
//! a file with `--console-texts FILE`, holding only the keys it changes,
//! merged over the embedded ones). Defaults come from the seeds and the
//! courses' starter code (docs/console.md says where each comes from).

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
    /// Reads a staff texts file: a whole copy of `texts.json`, or only the
    /// keys it changes (see [`Texts::merged`]).
    pub fn load(path: &Path) -> Result<Texts, TextsError> {
        let at = |why| TextsError {
            path: Some(path.to_path_buf()),
            why,
        };
        let text = std::fs::read_to_string(path).map_err(|e| at(TextsProblem::Read(e)))?;
        Texts::merged(&text).map_err(|e| at(e.why))
    }

    /// The embedded texts with `json`'s keys over them: nested objects are
    /// merged key by key (`{"jhu": {"white_turn": "White to move"}}`
    /// changes that one text), any other value replaces the default. A key
    /// the embedded texts do not have is an error naming it (`jhu.whte`),
    /// as is a value of the wrong type.
    pub fn merged(json: &str) -> Result<Texts, TextsError> {
        let err = |why| TextsError { path: None, why };
        let over: serde_json::Value =
            serde_json::from_str(json).map_err(|e| err(TextsProblem::Json(e)))?;
        let mut texts: serde_json::Value =
            serde_json::from_str(DEFAULT_TEXTS).expect("the embedded texts.json is valid");
        merge(&mut texts, over, "").map_err(err)?;
        serde_json::from_value(texts).map_err(|e| err(TextsProblem::Json(e)))
    }
}

/// Why a staff texts file cannot be used: the file (when read from one)
/// and the problem.
#[derive(Debug)]
pub struct TextsError {
    pub path: Option<std::path::PathBuf>,
    pub why: TextsProblem,
}

/// What is wrong with a texts file.
#[derive(Debug)]
pub enum TextsProblem {
    /// It cannot be read.
    Read(std::io::Error),
    /// It is not JSON, or a value cannot be what its key holds.
    Json(serde_json::Error),
    /// The top level is not an object.
    NotAnObject,
    /// A key the embedded texts do not have (`jhu.whte`), and the keys
    /// that level does have.
    UnknownKey { at: String, known: Vec<String> },
    /// A value of another JSON type than the default's.
    WrongType {
        at: String,
        expected: &'static str,
        found: &'static str,
    },
}

impl std::fmt::Display for TextsError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        if let Some(path) = &self.path {
            write!(f, "{}: ", path.display())?;
        }
        match &self.why {
            TextsProblem::Read(e) => write!(f, "{e}"),
            TextsProblem::Json(e) => write!(f, "{e}"),
            TextsProblem::NotAnObject => {
                f.write_str("the texts must be a JSON object, like texts.json")
            }
            TextsProblem::UnknownKey { at, known } => write!(
                f,
                "unknown key `{at}` (expected one of: {})",
                known.join(", ")
            ),
            TextsProblem::WrongType {
                at,
                expected,
                found,
            } => write!(f, "`{at}` must be {expected}, found {found}"),
        }
    }
}

impl std::error::Error for TextsError {}

/// Merges `over` into `base` at `path` (`""` for the top level).
fn merge(
    base: &mut serde_json::Value,
    over: serde_json::Value,
    path: &str,
) -> Result<(), TextsProblem> {
    use serde_json::Value;
    match (base, over) {
        (Value::Object(base), Value::Object(over)) => {
            for (key, value) in over {
                let at = if path.is_empty() {
                    key.clone()
                } else {
                    format!("{path}.{key}")
                };
                let Some(slot) = base.get_mut(&key) else {
                    return Err(TextsProblem::UnknownKey {
                        at,
                        known: base.keys().cloned().collect(),
                    });
                };
                merge(slot, value, &at)?;
            }
            Ok(())
        }
        (Value::Object(_), _) if path.is_empty() => Err(TextsProblem::NotAnObject),
        (base, over) if kind(base) != kind(&over) => Err(TextsProblem::WrongType {
            at: path.to_string(),
            expected: kind(base),
            found: kind(&over),
        }),
        (base, over) => {
            *base = over;
            Ok(())
        }
    }
}

/// A JSON value's type, for messages.
fn kind(v: &serde_json::Value) -> &'static str {
    use serde_json::Value;
    match v {
        Value::Null => "null",
        Value::Bool(_) => "true or false",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "a list",
        Value::Object(_) => "an object",
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

    #[test]
    fn a_partial_file_changes_only_its_keys() {
        let t = Texts::merged(r#"{"jhu": {"white_turn": "White to move"}}"#).unwrap();
        assert_eq!(t.jhu.white_turn, "White to move");
        let d = Texts::default();
        assert_eq!(t.jhu.black_turn, d.jhu.black_turn);
        assert_eq!(t.jhu.cxx_flags, d.jhu.cxx_flags);
        assert_eq!(t.cuhk.mode_prompt, d.cuhk.mode_prompt);
        // Several keys of both dialects; a list replaces the list.
        let t = Texts::merged(
            r#"{"cuhk": {"ignore_trailing_space": true, "cxx_flags": ["-O0"]},
                "jhu": {"binary": "game", "exit_status": 3}}"#,
        )
        .unwrap();
        assert!(t.cuhk.ignore_trailing_space);
        assert_eq!(t.cuhk.cxx_flags, ["-O0"]);
        assert_eq!((t.jhu.binary.as_str(), t.jhu.exit_status), ("game", 3));
        assert_eq!(t.cuhk.white, d.cuhk.white);
        // Nothing changed, and a whole copy, are the defaults.
        assert_eq!(
            format!("{:?}", Texts::merged("{}").unwrap()),
            format!("{d:?}")
        );
        assert_eq!(
            format!("{:?}", Texts::merged(DEFAULT_TEXTS).unwrap()),
            format!("{d:?}")
        );
    }

    #[test]
    fn a_file_is_read_and_merged_and_its_errors_name_it() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("texts.json");
        std::fs::write(&path, r#"{"jhu": {"white_turn": "W"}}"#).unwrap();
        assert_eq!(Texts::load(&path).unwrap().jhu.white_turn, "W");
        std::fs::write(&path, r#"{"jhu": {"whte": "W"}}"#).unwrap();
        let e = Texts::load(&path).unwrap_err();
        assert!(matches!(&e.why, TextsProblem::UnknownKey { at, .. } if at == "jhu.whte"));
        let e = e.to_string();
        assert!(
            e.starts_with(&format!("{}: unknown key `jhu.whte`", path.display())),
            "{e}"
        );
        assert!(Texts::load(&dir.path().join("missing.json")).is_err());
    }

    #[test]
    fn unknown_keys_and_wrong_types_are_named() {
        let err = |json: &str| Texts::merged(json).unwrap_err().to_string();
        let e = err(r#"{"jhu": {"white_tunr": "x"}}"#);
        assert!(e.starts_with("unknown key `jhu.white_tunr`"), "{e}");
        assert!(e.contains("white_turn"), "{e}");
        assert!(err(r#"{"mit": {}}"#).starts_with("unknown key `mit`"));
        assert_eq!(
            err(r#"{"jhu": "x"}"#),
            "`jhu` must be an object, found a string"
        );
        assert_eq!(
            err("[]"),
            "the texts must be a JSON object, like texts.json"
        );
        assert_eq!(
            err(r#"{"jhu": {"exit_status": "zero"}}"#),
            "`jhu.exit_status` must be a number, found a string"
        );
        // What the types cannot say, serde does.
        let e = err(r#"{"jhu": {"exit_status": 1.5}}"#);
        assert!(e.contains("invalid type"), "{e}");
        assert!(err("{").contains("EOF"));
    }
}
