//! A rule file's text into a [`RuleSet`]: every key checked, every error
//! a [`Diagnostic`] at the key or value at fault (at the very character,
//! inside a Betza string or a promotion list).
//!
//! The TOML is read with `toml`'s span-keeping document model rather than
//! through serde, so that an unknown key, a value of the wrong type and a
//! value that is wrong for chess (a Betza atom, a promotion letter the
//! rules do not have, a start position that does not fit) all point at
//! their own place in the file, and nothing unknown is skipped: a key the
//! reader does not know is an error, never a silent default.

use super::Extends;
use crate::domain::Role;
use crate::engine::{
    Castling, Ends, FenError, Kind, Notation, PieceTable, Position, RoleSet, RuleSet, RuleSetId,
    betza,
};
use crate::input::Diagnostic;
use std::ops::Range;
use std::path::Path;
use toml::Spanned;
use toml::de::{DeTable, DeValue};

/// The top-level keys, in the order `rules show` writes them.
pub const KEYS: [&str; 14] = [
    "extends",
    "name",
    "castling",
    "castling_files",
    "en_passant",
    "double_step",
    "promotion",
    "king_safety",
    "ends",
    "start",
    "notation",
    "valid_move_checks_turn",
    "values",
    "pieces",
];

/// The keys of a `[pieces.X]` table.
const PIECE_KEYS: [&str; 3] = ["name", "betza", "value"];

/// The longest `name` (of the rule set or a piece).
const MAX_NAME: usize = 64;

/// Where the error is: a byte range of the file.
struct At(Range<usize>);

/// A value and its place in the file.
type Value<'t, 'i> = &'t Spanned<DeValue<'i>>;

/// Reads the rule file `path` of text `text`. `extends` loads what an
/// `extends` key names (a built-in set's name or another rule file,
/// relative to this one).
pub fn read(path: &Path, text: &str, extends: &mut Extends) -> Result<RuleSet, Diagnostic> {
    let text = text.strip_prefix('\u{feff}').unwrap_or(text);
    let reader = Reader { path, text };
    let doc = DeTable::parse(text).map_err(|e| {
        let at = e.span().unwrap_or(0..0);
        reader.error(At(at), format!("not a TOML file: {}", e.message().trim()))
    })?;
    reader.rules(doc.get_ref(), extends)
}

struct Reader<'a> {
    path: &'a Path,
    text: &'a str,
}

impl Reader<'_> {
    /// The diagnostic `message` at `at`.
    fn error(&self, at: At, message: impl Into<String>) -> Diagnostic {
        let start = at.0.start.min(self.text.len());
        let start = (0..=start)
            .rev()
            .find(|&i| self.text.is_char_boundary(i))
            .unwrap_or(0);
        let line_start = self.text[..start].rfind('\n').map_or(0, |i| i + 1);
        let line_end = self.text[start..]
            .find('\n')
            .map_or(self.text.len(), |i| start + i);
        let line = self.text[..start].matches('\n').count() + 1;
        let col = self.text[line_start..start].chars().count() + 1;
        let source = self.text[line_start..line_end].trim_end_matches(['\r', ' ', '\t']);
        Diagnostic::at(line, col, message, source).with_path(self.path)
    }

    /// The place of the `k`-th character inside the string value `v` (its
    /// first character is 0), when the value is written plainly; else the
    /// value's own place.
    fn inside(&self, v: Value, k: usize) -> At {
        let span = v.span();
        let raw = &self.text[span.clone()];
        let plain = v
            .get_ref()
            .as_str()
            .is_some_and(|s| raw.len() == s.len() + 2 && raw[1..raw.len() - 1] == *s);
        match plain {
            true => {
                let s = &raw[1..raw.len() - 1];
                let byte = s.char_indices().nth(k).map_or(s.len(), |(i, _)| i);
                At(span.start + 1 + byte..span.start + 2 + byte)
            }
            false => At(span),
        }
    }

    fn string<'v>(&self, key: &str, v: Value<'_, 'v>) -> Result<String, Diagnostic> {
        v.get_ref().as_str().map(str::to_string).ok_or_else(|| {
            let found = v.get_ref().type_str();
            self.error(At(v.span()), format!("`{key}` is a string, found {found}"))
        })
    }

    /// One of `all`, by its `name`.
    fn choice<T: Copy>(
        &self,
        key: &str,
        v: Value,
        all: &[T],
        name: fn(T) -> &'static str,
    ) -> Result<T, Diagnostic> {
        let s = self.string(key, v)?;
        all.iter().copied().find(|&t| name(t) == s).ok_or_else(|| {
            let known: Vec<&str> = all.iter().map(|&t| name(t)).collect();
            self.error(
                At(v.span()),
                format!(
                    "unknown {} `{}` (known: {})",
                    key,
                    crate::input::shown(&s),
                    known.join(", ")
                ),
            )
        })
    }

    fn boolean(&self, key: &str, v: Value) -> Result<bool, Diagnostic> {
        v.get_ref().as_bool().ok_or_else(|| {
            let found = v.get_ref().type_str();
            self.error(
                At(v.span()),
                format!("`{key}` is true or false, found {found}"),
            )
        })
    }

    fn count(&self, key: &str, v: Value) -> Result<u32, Diagnostic> {
        let bad = |why: &str| self.error(At(v.span()), format!("`{key}` {why}"));
        let int = v.get_ref().as_integer().ok_or_else(|| {
            bad(&format!(
                "is a whole number, found {}",
                v.get_ref().type_str()
            ))
        })?;
        i64::from_str_radix(&int.as_str().replace('_', ""), int.radix())
            .ok()
            .and_then(|n| u32::try_from(n).ok())
            .ok_or_else(|| bad(&format!("is a whole number from 0 to {}", u32::MAX)))
    }

    fn table<'t, 'i>(&self, key: &str, v: Value<'t, 'i>) -> Result<&'t DeTable<'i>, Diagnostic> {
        v.get_ref().as_table().ok_or_else(|| {
            let found = v.get_ref().type_str();
            self.error(At(v.span()), format!("`{key}` is a table, found {found}"))
        })
    }

    fn name(&self, key: &str, v: Value) -> Result<String, Diagnostic> {
        let name = self.string(key, v)?;
        let printable = !name.is_empty() && name.chars().all(|c| !c.is_control());
        if !printable || name.chars().count() > MAX_NAME {
            return Err(self.error(
                At(v.span()),
                format!("`{key}` is 1 to {MAX_NAME} printable characters"),
            ));
        }
        Ok(name)
    }

    /// The whole file into rules.
    fn rules(&self, doc: &DeTable, extends: &mut Extends) -> Result<RuleSet, Diagnostic> {
        for (key, _) in doc.iter() {
            if !KEYS.contains(&key.get_ref().as_ref()) {
                return Err(self.error(
                    At(key.span()),
                    format!(
                        "unknown key `{}` (known: {})",
                        crate::input::shown(key.get_ref()),
                        KEYS.join(", ")
                    ),
                ));
            }
        }
        let get = |k: &str| doc.get(k);
        let Some(base) = get("extends") else {
            return Err(self.error(
                At(0..0),
                "missing `extends`: the set this file changes (lab3, standard, cuhk, jhu, or another rule file)",
            ));
        };
        let named = self.string("extends", base)?;
        let mut rules = extends(&named, self.path).map_err(|why| match why {
            super::ExtendsError::Message(m) => self.error(At(base.span()), m),
            super::ExtendsError::File(d) => d,
        })?;
        let stem = || {
            super::intern(
                self.path
                    .file_stem()
                    .map_or("rules".into(), |s| s.to_string_lossy().into_owned()),
            )
        };
        rules.name = match get("name") {
            Some(v) => super::intern(self.name("name", v)?),
            None => stem(),
        };
        if let Some(v) = get("castling") {
            rules.castling = self.choice("castling", v, &Castling::ALL, Castling::name)?;
        }
        if let Some(v) = get("castling_files") {
            rules.castling_files = Some(self.castling_files(v)?);
        }
        for (key, flag) in [
            ("en_passant", &mut rules.en_passant),
            ("double_step", &mut rules.pawn_double_step),
            ("king_safety", &mut rules.king_safety),
            ("valid_move_checks_turn", &mut rules.validity_checks_turn),
        ] {
            if let Some(v) = get(key) {
                *flag = self.boolean(key, v)?;
            }
        }
        if let Some(v) = get("ends") {
            rules.ends = self.ends(v)?;
        }
        if let Some(v) = get("notation") {
            rules.notation = self.choice("notation", v, &Notation::ALL, Notation::name)?;
        }
        if let Some(v) = get("pieces") {
            self.pieces(v, &mut rules)?;
        }
        if let Some(v) = get("values") {
            self.values(v, &mut rules)?;
        }
        if let Some(v) = get("promotion") {
            rules.promotion = self.promotion(v, &rules)?;
        }
        if let Some(v) = get("start") {
            let fen = self.string("start", v)?;
            self.start(v, &fen, &rules)?;
            rules.start = Some(super::intern(fen));
        }
        // A copy of a built-in set that changes it but keeps its name
        // (`rules show lab3`, one line edited) would pass itself off as
        // that set in every report: it is named after its file instead.
        if let Ok(id) = rules.name.parse::<RuleSetId>()
            && !rules.same_rules(&id.rules())
        {
            rules.name = stem();
        }
        Ok(rules)
    }

    /// `castling_files = ["c", "g"]`: the king's landing files.
    fn castling_files(&self, v: Value) -> Result<[u16; 2], Diagnostic> {
        let shape = || {
            self.error(
                At(v.span()),
                "`castling_files` is two file letters, where the king lands castling queen side then king side: [\"c\", \"g\"]",
            )
        };
        let list = v.get_ref().as_array().ok_or_else(shape)?;
        let [queen, king] = &list[..] else {
            return Err(shape());
        };
        let file = |f: Value| -> Result<u16, Diagnostic> {
            let s = f.get_ref().as_str().unwrap_or_default();
            match s.as_bytes() {
                [c @ b'a'..=b'z'] => Ok(u16::from(c - b'a')),
                _ => Err(self.error(
                    At(f.span()),
                    format!("`{}` is not a file letter (a to z)", crate::input::shown(s)),
                )),
            }
        };
        let (q, k) = (file(queen)?, file(king)?);
        if q >= k {
            return Err(self.error(
                At(v.span()),
                "the queen-side landing file comes before the king-side one: [\"c\", \"g\"]",
            ));
        }
        Ok([q, k])
    }

    fn ends(&self, v: Value) -> Result<Ends, Diagnostic> {
        let list = v.get_ref().as_array().ok_or_else(|| {
            self.error(
                At(v.span()),
                format!(
                    "`ends` is a list of {}, found {}",
                    Ends::NAMES.join(", "),
                    v.get_ref().type_str()
                ),
            )
        })?;
        let mut ends = Ends::default();
        for item in list.iter() {
            let s = item.get_ref().as_str().unwrap_or_default();
            let Some(flag) = ends.flag(s) else {
                return Err(self.error(
                    At(item.span()),
                    format!(
                        "unknown end `{}` (known: {})",
                        crate::input::shown(s),
                        Ends::NAMES.join(", ")
                    ),
                ));
            };
            if *flag {
                return Err(self.error(At(item.span()), format!("`{s}` is listed twice")));
            }
            *flag = true;
        }
        Ok(ends)
    }

    /// `[pieces.X]`: each letter's name, moves and value. A letter of
    /// chess's pieces or of the set extended keeps its moves and name
    /// unless the table gives new ones; a new letter needs `betza`. The
    /// pawn and the king take only a value: their moves are the rules'
    /// flags.
    fn pieces(&self, v: Value, rules: &mut RuleSet) -> Result<(), Diagnostic> {
        let table = self.table("pieces", v)?;
        let mut defs: Vec<(Role, Kind)> = rules
            .pieces
            .own_pieces()
            .map(|(r, k)| (r, k.clone()))
            .collect();
        for (key, def) in table.iter() {
            let letter = key.get_ref().as_ref();
            let role = self.piece_letter(letter, At(key.span()))?;
            let fields = self.table(&format!("pieces.{letter}"), def)?;
            for (k, _) in fields.iter() {
                if !PIECE_KEYS.contains(&k.get_ref().as_ref()) {
                    return Err(self.error(
                        At(k.span()),
                        format!(
                            "unknown key `{}` in [pieces.{letter}] (known: {})",
                            crate::input::shown(k.get_ref()),
                            PIECE_KEYS.join(", ")
                        ),
                    ));
                }
            }
            if let Some(value) = fields.get("value") {
                rules.values.0[role as usize] = self.count("value", value)?;
            }
            if matches!(role, Role::Pawn | Role::King) {
                if let Some((k, _)) = fields.iter().find(|(k, _)| k.get_ref().as_ref() != "value") {
                    return Err(self.error(
                        At(k.span()),
                        format!(
                            "the {}'s moves are the rules' own (double_step, en_passant, promotion, castling): [pieces.{letter}] takes only a value",
                            role.name()
                        ),
                    ));
                }
                continue;
            }
            let name = fields
                .get("name")
                .map(|n| self.name("name", n))
                .transpose()?;
            let known = rules.pieces.kind(role).cloned();
            let kind = match (fields.get("betza"), known) {
                (Some(b), known) => {
                    let text = self.string("betza", b)?;
                    let legs = betza::parse(&text)
                        .map_err(|e| self.error(self.inside(b, e.at), e.message))?;
                    if legs.is_empty() {
                        return Err(self.error(
                            At(b.span()),
                            "a piece needs at least one move: an empty Betza string makes a piece that never moves",
                        ));
                    }
                    let name = name
                        .or(known.map(|k| k.name))
                        .unwrap_or_else(|| role.name().to_string());
                    Kind::new(name, text, legs)
                }
                (None, Some(known)) => Kind::new(
                    name.unwrap_or(known.name.clone()),
                    known.betza.clone(),
                    known.legs(crate::domain::Color::White).to_vec(),
                ),
                (None, None) if fields.get("value").is_some() && role == Role::Mystery => continue,
                (None, None) => {
                    return Err(self.error(
                        At(key.span()),
                        format!(
                            "[pieces.{letter}] needs `betza`: how the piece moves (\"BN\" for an archbishop)"
                        ),
                    ));
                }
            };
            defs.retain(|(r, _)| *r != role);
            defs.push((role, kind));
        }
        rules.pieces = PieceTable::build(defs);
        Ok(())
    }

    /// `values = { P = 1, N = 3, ... }`: what `score` counts, by letter.
    fn values(&self, v: Value, rules: &mut RuleSet) -> Result<(), Diagnostic> {
        let table = self.table("values", v)?;
        for (key, value) in table.iter() {
            let letter = key.get_ref().as_ref();
            let role = self.piece_letter(letter, At(key.span()))?;
            if !rules.knows(role) && role != Role::Mystery {
                return Err(self.error(
                    At(key.span()),
                    format!("`{letter}` is not a piece of these rules: define it under [pieces.{letter}]"),
                ));
            }
            rules.values.0[role as usize] = self.count(letter, value)?;
        }
        Ok(())
    }

    /// A piece's letter as a key: White's, upper case.
    fn piece_letter(&self, letter: &str, at: At) -> Result<Role, Diagnostic> {
        match letter.as_bytes() {
            [c @ b'A'..=b'Z'] => Ok(Role::from_letter(*c as char).unwrap_or(Role::Pawn)),
            [c @ b'a'..=b'z'] => Err(self.error(
                at,
                format!(
                    "write a piece's letter in upper case, as White's: `{}`",
                    c.to_ascii_uppercase() as char
                ),
            )),
            _ => Err(self.error(
                at,
                format!(
                    "`{}` is not a piece letter (one of A to Z, upper case)",
                    crate::input::shown(letter)
                ),
            )),
        }
    }

    fn promotion(&self, v: Value, rules: &RuleSet) -> Result<RoleSet, Diagnostic> {
        let text = self.string("promotion", v)?;
        let mut set = RoleSet::EMPTY;
        for (k, c) in text.chars().enumerate() {
            let at = || self.inside(v, k);
            let Some(role) = Role::from_letter(c).filter(|_| c.is_ascii_uppercase()) else {
                return Err(self.error(
                    at(),
                    format!(
                        "`{}` in `promotion`: write the pieces' upper-case letters (\"QRBN\"; \"\" for none)",
                        c.escape_debug()
                    ),
                ));
            };
            if matches!(role, Role::Pawn | Role::King) {
                return Err(
                    self.error(at(), format!("a pawn may not promote to a {}", role.name()))
                );
            }
            if !rules.knows(role) || (role == Role::Mystery && !rules.pieces.knows(role)) {
                return Err(self.error(
                    at(),
                    format!(
                        "a pawn cannot promote to `{c}`: these rules have no such piece (define it under [pieces.{c}])"
                    ),
                ));
            }
            if set.contains(role) {
                return Err(self.error(at(), format!("`{c}` is listed twice")));
            }
            set = set.with(role);
        }
        Ok(set)
    }

    /// `start`: a FEN that these rules can play.
    fn start(&self, v: Value, fen: &str, rules: &RuleSet) -> Result<(), Diagnostic> {
        let position = Position::from_fen(*rules, fen).map_err(|e| {
            let at = match &e {
                FenError::UnknownPiece { letter, .. } => {
                    self.inside(v, fen.chars().position(|c| c == *letter).unwrap_or(0))
                }
                _ => At(v.span()),
            };
            self.error(at, format!("`start` does not fit these rules: {e}"))
        })?;
        let rights = position.castling_rights();
        if rules.castling != Castling::Rights && *rights != crate::engine::CastlingRights::NONE {
            let field = fen.split_whitespace().nth(2).unwrap_or("");
            let k = fen.find(field).map_or(0, |b| fen[..b].chars().count());
            return Err(self.error(
                self.inside(v, k),
                format!(
                    "`start` gives castling rights `{field}`, but castling is not by rights here: write `-`"
                ),
            ));
        }
        Ok(())
    }
}

/// The built-in rule set `name`, if it is one.
pub fn built_in(name: &str) -> Option<RuleSet> {
    name.parse::<RuleSetId>().ok().map(RuleSetId::rules)
}
