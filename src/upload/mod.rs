//! What an upload is: the one place that reads a student's folder as it
//! arrived (a zip unpacked, a repository cloned, an IDE's project folder)
//! and decides what will be built, with a note for each decision. Every
//! build (Lab 3, console, `--build`, `--memcheck`, `explain`, `shrink`,
//! class members) reads its upload here and copies it into its private
//! build folder from the decision ([`Upload::copy_into`]), never from the
//! raw folder.
//!
//! What a careful TA would do by hand before grading, done the same way
//! for every student:
//!
//! - **Packaging debris is not the upload** (`debris`): `__MACOSX/`,
//!   `._*`, `.DS_Store`, `Thumbs.db`, version-control and IDE folders are
//!   not read; an IDE's build folders (`Debug/`, `x64/`,
//!   `cmake-build-*/`) are left out unless they hold sources.
//! - **A single top folder is descended into** (a zip of a folder), and so
//!   is the one folder that holds the program when the others hold only
//!   documents. An upload is "several programs" only when two or more of
//!   its folders each hold a program of their own (a build file, a
//!   `main`, or Lab 3's `ChessBoard.hh` with its sources): one program
//!   spread over `Source/` and `Header/`, or `src/` and `include/`, is
//!   one upload.
//! - **Build products are left out** (`binary`): objects, archives,
//!   programs, core dumps and precompiled headers, told by their content
//!   (ELF, Mach-O, PE/COFF, `ar`), when the upload's sources make them
//!   again; an object no source makes (a course's `instructor.o`) is
//!   kept, and said. Sources are never left out, whatever their names.
//! - **Names as the student's machine saw them**: an `#include` that names
//!   an upload file in another case (or with Windows's `\`) is resolved
//!   to that file in the build's copy, and said; under
//!   [`CaseRule::Strict`] it is a compile error with the same words.
//!
//! The reader walks the folder once (debris folders not at all), reads
//! the first bytes of files that are not sources, and the text of sources
//! and headers for their includes: small next to any build.

mod archive;
mod binary;
mod cpp;
mod debris;

pub use cpp::defines_main;
pub use debris::is_debris_dir;

use binary::Binary;
use std::cell::RefCell;
use std::collections::{BTreeSet, HashMap};
use std::io::Read;
use std::path::{Component, Path, PathBuf};

/// The most an upload may hold (bytes of the files kept; entries walked):
/// a build copies it first.
pub const MAX_UPLOAD_BYTES: u64 = 256 << 20;
pub const MAX_UPLOAD_FILES: usize = 20_000;
/// Folders deeper than this are not walked.
const MAX_DEPTH: usize = 32;
/// A project file or source read for its names: larger ones are not read.
const MAX_TEXT_BYTES: u64 = 4 << 20;
/// Names a note lists before "…".
const LISTED: usize = 8;

/// How an `#include` whose name differs from the file's only in case (or
/// in Windows's `\`) is taken.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum CaseRule {
    /// As the student's Windows or macOS machine took it: the include
    /// names that file; the report says so.
    #[default]
    AsUploaded,
    /// Linux's rule (`--strict-case`): a compile error that says which
    /// include and which file.
    Strict,
}

/// The kinds of upload chessgrade builds.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum UploadKind {
    /// Lab 3 classes (`ChessBoard.hh` and `.cc` files), driven by the adapter.
    Lab3,
    /// A whole console program (Makefile, CMakeLists.txt or C++ sources).
    Console,
}

/// Why a folder is no single upload.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ReadError {
    /// Not a folder that can be read.
    NotAFolder(String),
    /// Its subfolders each hold a program of their own (a class folder,
    /// or a repository of several assignments): their names.
    SeveralPrograms(Vec<String>),
    /// More than [`MAX_UPLOAD_BYTES`] or [`MAX_UPLOAD_FILES`].
    TooLarge,
    /// An archive refused for what it holds (an entry outside the upload,
    /// a link, a zip bomb): why.
    Refused(String),
    /// A file or folder of it could not be read.
    Io(String),
}

impl std::fmt::Display for ReadError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            ReadError::NotAFolder(m) => write!(f, "{m}"),
            ReadError::SeveralPrograms(dirs) => write!(
                f,
                "the upload holds {} programs, one in each of {}; upload one program \
                 (or grade a folder of uploads with --class)",
                dirs.len(),
                dirs.iter()
                    .map(|d| format!("{d}/"))
                    .collect::<Vec<_>>()
                    .join(", ")
            ),
            ReadError::TooLarge => write!(
                f,
                "the upload is too large to build: more than {} MiB or {MAX_UPLOAD_FILES} files",
                MAX_UPLOAD_BYTES >> 20
            ),
            ReadError::Refused(m) | ReadError::Io(m) => write!(f, "{m}"),
        }
    }
}

/// An include the reader resolved as the student's machine did: `file`
/// line `line` wrote `written`, which names `actual` only if case (or
/// `\`) is ignored; the build's copy says `fixed`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CaseFix {
    pub file: PathBuf,
    pub line: usize,
    pub written: String,
    pub fixed: String,
    pub actual: PathBuf,
}

impl CaseFix {
    /// The include and the file, in words a student understands.
    fn what(&self) -> String {
        let mut why = Vec::new();
        if self.written.contains('\\') {
            why.push("it separates folders with \\, which only Windows accepts");
        }
        if self.written.replace('\\', "/").to_lowercase() == self.fixed.to_lowercase()
            && self.written.replace('\\', "/") != self.fixed
        {
            why.push(
                "its name differs from the file's only in case, which Windows and macOS \
                 ignore and Linux does not",
            );
        }
        format!(
            "{} line {}: #include \"{}\" names {}, but {}",
            show(&self.file),
            self.line,
            self.written,
            show(&self.actual),
            why.join(", and ")
        )
    }

    /// The note of a build that resolved it.
    pub fn note(&self) -> String {
        format!(
            "{}; built as #include \"{}\" (--strict-case makes this a compile error)",
            self.what(),
            self.fixed
        )
    }

    /// The compile error it is under [`CaseRule::Strict`].
    pub fn error(&self) -> String {
        format!(
            "{}. This course builds by Linux's rules (--strict-case): write #include \"{}\", \
             or rename the file.",
            self.what(),
            self.fixed
        )
    }
}

/// How an upload at its root says it is built.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum BuildFile {
    /// `Makefile` (or `makefile`, `GNUmakefile`).
    Make,
    /// `CMakeLists.txt`.
    CMake,
}

/// The sources of a program with no build file: the ones a Visual Studio
/// project lists, or every source of the upload.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ProgramSources {
    /// Relative to the upload's root, sorted.
    pub files: Vec<PathBuf>,
    /// The project file that listed them, if one did.
    pub project: Option<PathBuf>,
}

/// The files of an upload of C++ classes (Lab 3's, or a course's graded
/// through its hook file).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ClassFiles {
    /// The sources to compile with the adapter, relative to the root.
    pub sources: Vec<PathBuf>,
    /// Sources left out because they define `main` (the course's driver).
    pub left_out: Vec<PathBuf>,
}

/// An upload as the reader decided it (see the module doc).
#[derive(Clone, Debug)]
pub struct Upload {
    /// The folder as given.
    given: PathBuf,
    /// The folder the program is in (absolute): `given` or one below it.
    root: PathBuf,
    /// `root` relative to `given` (empty when it is `given`).
    descended: PathBuf,
    /// The regular files that are the upload, relative to `root`, sorted.
    files: Vec<PathBuf>,
    /// Its folders, relative to `root`: copied even when empty or emptied
    /// (a build folder whose products were left out may be where the
    /// Makefile writes, without creating it).
    dirs: Vec<PathBuf>,
    /// Packaging and IDE debris left out (folders end in `/`).
    debris: Vec<String>,
    /// Build products left out, relative to `root`.
    products: Vec<PathBuf>,
    /// Binaries kept because no source of the upload makes them.
    kept: Vec<(PathBuf, Binary)>,
    /// Links, FIFOs and devices: never copied.
    specials: Vec<PathBuf>,
    case_fixes: Vec<CaseFix>,
    /// The folder a zip upload was unpacked into, kept while the upload
    /// is.
    unpacked: Option<std::sync::Arc<tempfile::TempDir>>,
}

/// Is this a zip archive (an upload `--submission` and `--class` unpack)?
pub fn is_archive(path: &Path) -> bool {
    path.is_file() && archive::is_zip(path)
}

/// Is this a C++ source by its name?
pub fn is_source(path: &Path) -> bool {
    path.extension()
        .and_then(|x| x.to_str())
        .is_some_and(|x| matches!(x, "cpp" | "cc" | "cxx" | "c++" | "cp" | "CPP" | "C"))
}

/// Is this a C or C++ header by its name?
pub fn is_header(path: &Path) -> bool {
    path.extension().and_then(|x| x.to_str()).is_some_and(|x| {
        matches!(
            x,
            "h" | "hh" | "hpp" | "hxx" | "h++" | "inl" | "ipp" | "tpp" | "H" | "HPP"
        )
    })
}

fn build_file_of(path: &Path) -> Option<BuildFile> {
    match path.file_name()?.to_str()? {
        "Makefile" | "makefile" | "GNUmakefile" => Some(BuildFile::Make),
        "CMakeLists.txt" => Some(BuildFile::CMake),
        _ => None,
    }
}

fn is_project_file(path: &Path) -> bool {
    path.extension().is_some_and(|x| x == "vcxproj")
}

/// A file that belongs to a program: a source, a header, a build or
/// project file.
fn is_program_file(path: &Path) -> bool {
    is_source(path) || is_header(path) || build_file_of(path).is_some() || is_project_file(path)
}

/// A path as notes write it (`/` between folders).
fn show(path: &Path) -> String {
    path.components()
        .map(|c| c.as_os_str().to_string_lossy())
        .collect::<Vec<_>>()
        .join("/")
}

/// `names` as a note lists them: the first eight, then `…`.
pub fn listing(names: &[String]) -> String {
    let mut shown: Vec<&str> = names.iter().take(LISTED).map(String::as_str).collect();
    if names.len() > LISTED {
        shown.push("…");
    }
    shown.join(", ")
}

fn read_head(path: &Path, limit: u64) -> std::io::Result<Vec<u8>> {
    let mut bytes = Vec::new();
    std::fs::File::open(path)?
        .take(limit)
        .read_to_end(&mut bytes)?;
    Ok(bytes)
}

/// `base` joined with `rel` (`/` separated), `.` and `..` resolved by
/// their text; `None` when it leaves the upload.
fn lexical_join(base: &Path, rel: &str) -> Option<PathBuf> {
    let mut parts: Vec<String> = base
        .components()
        .map(|c| c.as_os_str().to_string_lossy().into_owned())
        .collect();
    for part in rel.split('/') {
        match part {
            "" | "." => {}
            ".." => {
                parts.pop()?;
            }
            name => parts.push(name.to_string()),
        }
    }
    Some(parts.iter().collect())
}

impl Upload {
    /// Reads the upload in `dir` (see the module doc): a folder, or a zip
    /// archive unpacked first (`archive`).
    pub fn read(dir: &Path) -> Result<Upload, ReadError> {
        if !is_archive(dir) {
            return Upload::read_folder(dir);
        }
        let unpacked = tempfile::Builder::new()
            .prefix("chessgrade-upload-")
            .tempdir()
            .map_err(|e| ReadError::Io(format!("cannot unpack {}: {e}", dir.display())))?;
        archive::unpack(dir, unpacked.path()).map_err(ReadError::Refused)?;
        let mut upload = Upload::read_folder(unpacked.path())?;
        upload.given = dir.to_path_buf();
        upload.unpacked = Some(std::sync::Arc::new(unpacked));
        Ok(upload)
    }

    fn read_folder(dir: &Path) -> Result<Upload, ReadError> {
        let abs = dir
            .canonicalize()
            .map_err(|e| ReadError::NotAFolder(format!("{}: {e}", dir.display())))?;
        if !abs.is_dir() {
            return Err(ReadError::NotAFolder(format!(
                "{} is not a folder",
                dir.display()
            )));
        }
        let walked = walk(&abs)?;
        let mut debris = walked.debris;
        let mut files = walked.files;
        drop_build_output(&walked.dirs, &mut files, &mut debris);

        let descended = descend(&files);
        let programs = programs_below(&abs, &descended, &files);
        if programs.len() >= 2 {
            return Err(ReadError::SeveralPrograms(programs));
        }
        let root = abs.join(&descended);
        let under = |p: &Path| p.strip_prefix(&descended).ok().map(Path::to_path_buf);
        let mut kept: Vec<(PathBuf, u64)> = files
            .iter()
            .filter_map(|(p, size)| Some((under(p)?, *size)))
            .collect();
        let specials: Vec<PathBuf> = walked.specials.iter().filter_map(|p| under(p)).collect();
        let dirs: Vec<PathBuf> = walked
            .dirs
            .iter()
            .filter_map(|p| under(p))
            .filter(|p| !p.as_os_str().is_empty())
            .collect();

        // Build products, by content.
        let stems: BTreeSet<String> = kept
            .iter()
            .filter(|(p, _)| is_source(p))
            .filter_map(|(p, _)| Some(p.file_stem()?.to_string_lossy().to_lowercase()))
            .collect();
        let names: BTreeSet<String> = kept
            .iter()
            .filter_map(|(p, _)| Some(p.file_name()?.to_string_lossy().into_owned()))
            .collect();
        let mut products = Vec::new();
        let mut binaries = Vec::new();
        for (rel, _) in &kept {
            if is_program_file(rel) {
                continue;
            }
            let head = read_head(&root.join(rel), binary::SNIFF_BYTES as u64)
                .map_err(|e| ReadError::Io(format!("{}: {e}", root.join(rel).display())))?;
            let Some(kind) = binary::sniff(&head) else {
                continue;
            };
            let made_again = match kind {
                Binary::AppleDouble => {
                    debris.push(show(&descended.join(rel)));
                    continue;
                }
                Binary::Executable | Binary::Core | Binary::DebugSymbols => true,
                // `ChessBoard.hh.gch` is made from `ChessBoard.hh`.
                Binary::PrecompiledHeader => rel
                    .file_stem()
                    .is_some_and(|h| names.contains(&*h.to_string_lossy())),
                Binary::Object | Binary::Archive | Binary::SharedLibrary => {
                    rel.file_stem().is_some_and(|stem| {
                        let stem = stem.to_string_lossy().to_lowercase();
                        let stem = stem.split('.').next().unwrap_or("");
                        stems.contains(stem)
                            || stem.strip_prefix("lib").is_some_and(|s| stems.contains(s))
                    })
                }
            };
            if made_again {
                products.push(rel.clone());
            } else {
                binaries.push((rel.clone(), kind));
            }
        }
        kept.retain(|(p, _)| !products.contains(p) && !debris.contains(&show(&descended.join(p))));
        if kept.iter().map(|(_, size)| size).sum::<u64>() > MAX_UPLOAD_BYTES {
            return Err(ReadError::TooLarge);
        }
        let mut upload = Upload {
            given: dir.to_path_buf(),
            root,
            descended,
            files: kept.into_iter().map(|(p, _)| p).collect(),
            dirs,
            debris,
            products,
            kept: binaries,
            specials,
            case_fixes: Vec::new(),
            unpacked: None,
        };
        upload.case_fixes = upload.find_case_fixes();
        Ok(upload)
    }

    /// The folder as given.
    pub fn given(&self) -> &Path {
        &self.given
    }

    /// The folder the program is in (absolute).
    pub fn root(&self) -> &Path {
        &self.root
    }

    /// The files that are the upload, relative to [`Upload::root`].
    pub fn files(&self) -> &[PathBuf] {
        &self.files
    }

    /// Which kind of upload it is, if any: Lab 3 when it has
    /// `ChessBoard.hh`; a console program when it has a build file or
    /// C++ sources.
    pub fn kind(&self) -> Option<UploadKind> {
        if self.lab3_header().is_some() {
            Some(UploadKind::Lab3)
        } else if self.build_file().is_some() || self.files.iter().any(|f| is_source(f)) {
            Some(UploadKind::Console)
        } else {
            None
        }
    }

    /// What it holds, in a line (for "nothing to build" messages).
    pub fn contents(&self) -> String {
        if self.files.is_empty() {
            return "it holds no files".to_string();
        }
        let names: Vec<String> = self.files.iter().map(|f| show(f)).collect();
        format!("it holds {}", listing(&names))
    }

    /// Its build file, at its root.
    pub fn build_file(&self) -> Option<BuildFile> {
        self.files
            .iter()
            .filter(|f| f.parent() == Some(Path::new("")))
            .filter_map(|f| build_file_of(f))
            .min_by_key(|b| matches!(b, BuildFile::CMake))
    }

    fn lab3_header(&self) -> Option<&PathBuf> {
        self.files
            .iter()
            .filter(|f| f.file_name().is_some_and(|n| n == "ChessBoard.hh"))
            .min_by_key(|f| f.components().count())
    }

    /// Every folder that holds a header (relative to the root, the root
    /// itself as `""`), the root first: the include path, as the
    /// student's IDE had it.
    pub fn header_dirs(&self) -> Vec<PathBuf> {
        let mut dirs: BTreeSet<PathBuf> = BTreeSet::new();
        dirs.insert(PathBuf::new());
        for f in self.files.iter().filter(|f| is_header(f)) {
            dirs.insert(f.parent().map(Path::to_path_buf).unwrap_or_default());
        }
        dirs.into_iter().collect()
    }

    /// The text of one of its files (lossy), if it can be read and is not
    /// too large.
    fn text(&self, rel: &Path) -> Option<String> {
        let bytes = read_head(&self.root.join(rel), MAX_TEXT_BYTES).ok()?;
        Some(String::from_utf8_lossy(&bytes).into_owned())
    }

    /// A Lab 3 upload's sources: the ones beside `ChessBoard.hh` or, when
    /// that folder holds none (`include/` and `src/`), every source of
    /// the upload; a source that defines `main` is left out.
    pub fn lab3(&self) -> Result<ClassFiles, String> {
        let Some(header) = self.lab3_header() else {
            return Err(format!(
                "no ChessBoard.hh in {} ({})",
                self.given.display(),
                self.contents()
            ));
        };
        let folder = header.parent().unwrap_or(Path::new(""));
        let beside: Vec<&PathBuf> = self
            .files
            .iter()
            .filter(|f| is_source(f) && f.parent() == Some(folder))
            .collect();
        let candidates: Vec<&PathBuf> = if beside.is_empty() {
            self.files.iter().filter(|f| is_source(f)).collect()
        } else {
            beside
        };
        let files = self.without_main(candidates)?;
        if files.sources.is_empty() {
            return Err(format!("no .cc files beside {}", show(header)));
        }
        Ok(files)
    }

    /// A course's C++ classes graded through its own hook file
    /// (`--adapter`): every source of the upload, in whatever folder; a
    /// source that defines `main` (the student's own driver) is left out.
    pub fn classes(&self) -> Result<ClassFiles, String> {
        let files = self.without_main(self.files.iter().filter(|f| is_source(f)).collect())?;
        if files.sources.is_empty() {
            return Err(format!(
                "no C++ source without a main() in {} ({})",
                self.given.display(),
                self.contents()
            ));
        }
        Ok(files)
    }

    /// `candidates` split into the sources to compile and those left out
    /// because they define `main`.
    fn without_main(&self, candidates: Vec<&PathBuf>) -> Result<ClassFiles, String> {
        let (mut sources, mut left_out) = (Vec::new(), Vec::new());
        for f in candidates {
            let text = self
                .text(f)
                .ok_or_else(|| format!("{}: cannot be read", show(f)))?;
            if defines_main(&text) {
                left_out.push(f.clone());
            } else {
                sources.push(f.clone());
            }
        }
        Ok(ClassFiles { sources, left_out })
    }

    /// The sources of a program with no build file: the ones its Visual
    /// Studio project lists (the first project that lists any the upload
    /// has), else every source, in whatever folder.
    pub fn program_sources(&self) -> ProgramSources {
        let lower: HashMap<String, &PathBuf> = self
            .files
            .iter()
            .map(|f| (show(f).to_lowercase(), f))
            .collect();
        for project in self.files.iter().filter(|f| is_project_file(f)) {
            let Some(text) = self.text(project) else {
                continue;
            };
            let base = project.parent().unwrap_or(Path::new(""));
            let mut listed: Vec<PathBuf> = project_sources(&text)
                .iter()
                .filter_map(|name| lexical_join(base, &name.replace('\\', "/")))
                .filter_map(|p| lower.get(&show(&p).to_lowercase()).map(|f| (*f).clone()))
                .filter(|p| is_source(p))
                .collect();
            listed.sort();
            listed.dedup();
            if !listed.is_empty() {
                return ProgramSources {
                    files: listed,
                    project: Some(project.clone()),
                };
            }
        }
        ProgramSources {
            files: self
                .files
                .iter()
                .filter(|f| is_source(f))
                .cloned()
                .collect(),
            project: None,
        }
    }

    /// The includes resolved as the student's machine did.
    pub fn case_fixes(&self) -> &[CaseFix] {
        &self.case_fixes
    }

    /// Under [`CaseRule::Strict`], the compile error its includes are.
    pub fn case_error(&self, rule: CaseRule) -> Option<String> {
        (rule == CaseRule::Strict && !self.case_fixes.is_empty()).then(|| {
            self.case_fixes
                .iter()
                .map(CaseFix::error)
                .collect::<Vec<_>>()
                .join("\n")
        })
    }

    /// What the reader decided, as the report's notes say it: where the
    /// program was found, what was left out or kept, and (as the
    /// student's machine had it) which includes were resolved.
    pub fn notes(&self, rule: CaseRule) -> Vec<String> {
        let mut notes = Vec::new();
        if self.unpacked.is_some() {
            let name = self.given.file_name().unwrap_or_default().to_string_lossy();
            notes.push(format!("upload: unpacked from {name}"));
        }
        if !self.descended.as_os_str().is_empty() {
            notes.push(format!(
                "upload: the program is in {}/, graded from there",
                show(&self.descended)
            ));
        }
        if !self.debris.is_empty() {
            notes.push(format!(
                "left out {} packaging and IDE {} that {} not the program: {}",
                self.debris.len(),
                plural(self.debris.len(), "file", "files"),
                plural(self.debris.len(), "is", "are"),
                listing(&self.debris)
            ));
        }
        if !self.products.is_empty() {
            let names: Vec<String> = self.products.iter().map(|p| show(p)).collect();
            notes.push(format!(
                "left out {} build {} the upload carried: {}; built from the sources",
                names.len(),
                plural(names.len(), "product", "products"),
                listing(&names)
            ));
        }
        for (path, kind) in &self.kept {
            notes.push(format!(
                "kept {}: no source of the upload makes this {} (a course may hand one out)",
                show(path),
                kind.noun()
            ));
        }
        if !self.specials.is_empty() {
            let names: Vec<String> = self.specials.iter().map(|p| show(p)).collect();
            notes.push(format!(
                "left out {} {} that {} not a regular file (a link, FIFO or device): {}",
                names.len(),
                plural(names.len(), "entry", "entries"),
                plural(names.len(), "is", "are"),
                listing(&names)
            ));
        }
        if rule == CaseRule::AsUploaded {
            notes.extend(self.case_fixes.iter().map(CaseFix::note));
        }
        notes
    }

    /// Copies the upload (its files only, as decided) into `to`, the
    /// includes resolved under [`CaseRule::AsUploaded`].
    pub fn copy_into(&self, to: &Path, rule: CaseRule) -> std::io::Result<()> {
        let context = |p: &Path, e: std::io::Error| {
            std::io::Error::new(e.kind(), format!("{}: {e}", p.display()))
        };
        std::fs::create_dir_all(to).map_err(|e| context(to, e))?;
        for dir in &self.dirs {
            std::fs::create_dir_all(to.join(dir)).map_err(|e| context(&to.join(dir), e))?;
        }
        for rel in &self.files {
            let (from, target) = (self.root.join(rel), to.join(rel));
            if let Some(parent) = target.parent() {
                std::fs::create_dir_all(parent).map_err(|e| context(parent, e))?;
            }
            let fixes: Vec<&CaseFix> = match rule {
                CaseRule::AsUploaded => self.case_fixes.iter().filter(|c| &c.file == rel).collect(),
                CaseRule::Strict => Vec::new(),
            };
            // Named by its place in the upload: the message may reach the
            // student (a folder too small for it).
            if fixes.is_empty() {
                std::fs::copy(&from, &target).map_err(|e| context(rel, e))?;
            } else {
                let text = std::fs::read(&from).map_err(|e| context(rel, e))?;
                std::fs::write(&target, rewrite_includes(&text, &fixes))
                    .map_err(|e| context(rel, e))?;
            }
        }
        Ok(())
    }

    /// Every quoted include of its sources and headers that names an
    /// upload file only if case (or `\`) is ignored.
    fn find_case_fixes(&self) -> Vec<CaseFix> {
        let exact: BTreeSet<String> = self.files.iter().map(|f| show(f)).collect();
        let mut lower: HashMap<String, Vec<&PathBuf>> = HashMap::new();
        for f in &self.files {
            lower.entry(show(f).to_lowercase()).or_default().push(f);
        }
        let header_dirs = self.header_dirs();
        let mut fixes = Vec::new();
        for file in self.files.iter().filter(|f| is_source(f) || is_header(f)) {
            let Some(text) = self.text(file) else {
                continue;
            };
            let own = file.parent().map(Path::to_path_buf).unwrap_or_default();
            let search: Vec<&PathBuf> = std::iter::once(&own).chain(&header_dirs).collect();
            for (line, written) in cpp::quoted_includes(&text) {
                let slashed = written.replace('\\', "/");
                let candidates: Vec<PathBuf> = search
                    .iter()
                    .filter_map(|dir| lexical_join(dir, &slashed))
                    .collect();
                let found_exact = candidates.iter().find(|c| exact.contains(&show(c)));
                let (actual, fixed) = match found_exact {
                    Some(_) if slashed == written => continue,
                    Some(actual) => (actual.clone(), slashed.clone()),
                    None => {
                        let Some(actual) = candidates.iter().find_map(|c| {
                            match lower.get(&show(c).to_lowercase()).map(Vec::as_slice) {
                                Some([only]) => Some((*only).clone()),
                                _ => None,
                            }
                        }) else {
                            continue;
                        };
                        let Some(fixed) = recase(&slashed, &actual) else {
                            continue;
                        };
                        (actual, fixed)
                    }
                };
                fixes.push(CaseFix {
                    file: file.clone(),
                    line,
                    written,
                    fixed,
                    actual,
                });
            }
        }
        fixes
    }
}

fn plural<'a>(n: usize, one: &'a str, many: &'a str) -> &'a str {
    if n == 1 { one } else { many }
}

/// `written` (`/` separated) with its names in `actual`'s case: leading
/// `.` and `..` kept, the rest taken from the end of `actual`. `None`
/// when a `..` follows a name (not worth guessing).
fn recase(written: &str, actual: &Path) -> Option<String> {
    let parts: Vec<&str> = written.split('/').filter(|p| !p.is_empty()).collect();
    let lead = parts
        .iter()
        .take_while(|p| matches!(**p, "." | ".."))
        .count();
    if parts[lead..].iter().any(|p| matches!(*p, "." | "..")) {
        return None;
    }
    let names: Vec<String> = actual
        .components()
        .map(|c| c.as_os_str().to_string_lossy().into_owned())
        .collect();
    let tail = parts.len() - lead;
    let mut out: Vec<String> = parts[..lead].iter().map(|s| s.to_string()).collect();
    out.extend(names.get(names.len().checked_sub(tail)?..)?.iter().cloned());
    Some(out.join("/"))
}

/// `text` with each fix's include written as fixed, on its own line.
fn rewrite_includes(text: &[u8], fixes: &[&CaseFix]) -> Vec<u8> {
    let mut out = Vec::with_capacity(text.len() + 64);
    for (i, line) in text.split_inclusive(|&b| b == b'\n').enumerate() {
        match fixes.iter().find(|f| f.line == i + 1) {
            Some(fix) => {
                let from = format!("\"{}\"", fix.written);
                let to = format!("\"{}\"", fix.fixed);
                match line.windows(from.len()).position(|w| w == from.as_bytes()) {
                    Some(at) => {
                        out.extend_from_slice(&line[..at]);
                        out.extend_from_slice(to.as_bytes());
                        out.extend_from_slice(&line[at + from.len()..]);
                    }
                    None => out.extend_from_slice(line),
                }
            }
            None => out.extend_from_slice(line),
        }
    }
    out
}

/// The `<ClCompile Include="...">` names of a Visual Studio project.
fn project_sources(text: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut rest = text;
    while let Some(at) = rest.find("<ClCompile") {
        rest = &rest[at + "<ClCompile".len()..];
        let tag_end = rest.find('>').unwrap_or(rest.len());
        let tag = &rest[..tag_end];
        if let Some(i) = tag.find("Include=\"") {
            let value = &tag[i + "Include=\"".len()..];
            if let Some(end) = value.find('"') {
                out.push(value[..end].to_string());
            }
        }
    }
    out
}

/// What one walk of an upload found (paths relative to it).
struct Walked {
    files: Vec<(PathBuf, u64)>,
    dirs: Vec<PathBuf>,
    debris: Vec<String>,
    specials: Vec<PathBuf>,
}

/// Walks the upload once: debris folders are not entered, debris files
/// are named, links and other special files are set apart.
fn walk(abs: &Path) -> Result<Walked, ReadError> {
    let skipped = RefCell::new(Vec::new());
    let rel = |p: &Path| {
        p.strip_prefix(abs)
            .map(Path::to_path_buf)
            .unwrap_or_default()
    };
    let mut walked = Walked {
        files: Vec::new(),
        dirs: Vec::new(),
        debris: Vec::new(),
        specials: Vec::new(),
    };
    let walker = walkdir::WalkDir::new(abs)
        .follow_links(false)
        .max_depth(MAX_DEPTH)
        .sort_by_file_name()
        .into_iter()
        .filter_entry(|e| {
            let debris = e.depth() > 0
                && e.file_type().is_dir()
                && debris::is_debris_dir(&e.file_name().to_string_lossy());
            if debris {
                skipped
                    .borrow_mut()
                    .push(format!("{}/", show(&rel(e.path()))));
            }
            !debris
        });
    for (count, entry) in walker.enumerate() {
        if count > MAX_UPLOAD_FILES {
            return Err(ReadError::TooLarge);
        }
        let entry = entry.map_err(|e| ReadError::Io(e.to_string()))?;
        if entry.depth() == 0 {
            continue;
        }
        let path = rel(entry.path());
        let kind = entry.file_type();
        if kind.is_dir() {
            walked.dirs.push(path);
        } else if kind.is_file() {
            if debris::is_debris_file(&entry.file_name().to_string_lossy()) {
                walked.debris.push(show(&path));
            } else {
                let size = entry.metadata().map_or(0, |m| m.len());
                walked.files.push((path, size));
            }
        } else {
            walked.specials.push(path);
        }
    }
    let mut debris = skipped.into_inner();
    debris.append(&mut walked.debris);
    walked.debris = debris;
    Ok(walked)
}

/// Leaves out an IDE's build folders (and CMake build folders) that hold
/// no source or header: their files, named once as the folder.
fn drop_build_output(dirs: &[PathBuf], files: &mut Vec<(PathBuf, u64)>, debris: &mut Vec<String>) {
    let mut dropped: Vec<&PathBuf> = Vec::new();
    for dir in dirs {
        if dropped.iter().any(|d| dir.starts_with(d)) {
            continue;
        }
        let named = dir
            .file_name()
            .is_some_and(|n| debris::is_build_output_dir(&n.to_string_lossy()));
        let cmake = files.iter().any(|(f, _)| f == &dir.join("CMakeCache.txt"));
        if !(named || cmake) {
            continue;
        }
        let has_code = files
            .iter()
            .any(|(f, _)| f.starts_with(dir) && (is_source(f) || is_header(f)));
        if !has_code {
            dropped.push(dir);
            debris.push(format!("{}/", show(dir)));
        }
    }
    files.retain(|(f, _)| !dropped.iter().any(|d| f.starts_with(d)));
}

/// The folder the program is in, relative to the upload: descend while
/// the folder has no program file of its own and exactly one subfolder
/// holds any.
fn descend(files: &[(PathBuf, u64)]) -> PathBuf {
    let mut at = PathBuf::new();
    loop {
        let mut below: BTreeSet<PathBuf> = BTreeSet::new();
        for (f, _) in files.iter().filter(|(f, _)| is_program_file(f)) {
            let Ok(rest) = f.strip_prefix(&at) else {
                continue;
            };
            let mut parts = rest.components();
            let first = parts.next();
            if parts.next().is_none() {
                return at; // a program file right here
            }
            if let Some(Component::Normal(name)) = first {
                below.insert(at.join(name));
            }
        }
        match below.len() {
            1 => at = below.into_iter().next().expect("one"),
            _ => return at,
        }
    }
}

/// The subfolders of `at` that each hold a program of their own, when
/// `at` holds no program file itself: a build or project file, a source
/// that defines `main`, or Lab 3's `ChessBoard.hh` with a source.
fn programs_below(abs: &Path, at: &Path, files: &[(PathBuf, u64)]) -> Vec<String> {
    let direct = |f: &Path| f.parent() == Some(at);
    if files.iter().any(|(f, _)| direct(f) && is_program_file(f)) {
        return Vec::new();
    }
    let mut by_folder: std::collections::BTreeMap<PathBuf, Vec<&PathBuf>> = Default::default();
    for (f, _) in files {
        if let Ok(rest) = f.strip_prefix(at)
            && let Some(Component::Normal(name)) = rest.components().next()
            && rest.components().count() > 1
        {
            by_folder.entry(at.join(name)).or_default().push(f);
        }
    }
    by_folder
        .into_iter()
        .filter(|(_, files)| {
            let build = files
                .iter()
                .any(|f| build_file_of(f).is_some() || is_project_file(f));
            let lab3 = files
                .iter()
                .any(|f| f.file_name().is_some_and(|n| n == "ChessBoard.hh"))
                && files.iter().any(|f| is_source(f));
            let main = || {
                files.iter().filter(|f| is_source(f)).any(|f| {
                    read_head(&abs.join(f), MAX_TEXT_BYTES)
                        .is_ok_and(|b| defines_main(&String::from_utf8_lossy(&b)))
                })
            };
            build || lab3 || main()
        })
        .map(|(dir, _)| show(&dir))
        .collect()
}

#[cfg(test)]
mod tests;
