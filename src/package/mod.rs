//! `chessgrade package gradescope`: one `autograder.zip` a TA uploads to
//! Gradescope, holding everything a grading run needs, so that nothing is
//! assembled by hand (and nothing forgotten): Gradescope's two scripts,
//! `setup.sh` (the compiler the uploads need) and `run_autograder` (the
//! `grade` command, its flags fixed when the zip was made), the grader's
//! own binary, the chosen scenarios under their names, the snapshots
//! those scenarios are judged by, the rule files they run under (each
//! written flat, as `rules show` writes it, so no `extends` is left to
//! follow), and the course's `--overlay`.
//!
//! It is shaped by what Gradescope does with the zip: unpacks it into
//! `/autograder/source`, runs `setup.sh` once when it builds the image,
//! then `run_autograder` per submission with the upload in
//! `/autograder/submission` and `results.json` expected in
//! `/autograder/results`. The scripts take that root from
//! `AUTOGRADER_ROOT` (default `/autograder`), so the same zip is tried
//! end to end under a temporary folder. Scenarios keep their names (their
//! path below `--root`), so the snapshots, keyed by name, still match, and
//! the zip is written to a temporary file renamed over the output, so a
//! failed write never leaves half a zip where the last good one was.

use crate::grading::{BatchSpec, StaffError};
use crate::runner::SnapshotMode;
use crate::snapshot::SnapshotStore;
use std::fs::File;
use std::io::{self, Write};
use std::path::{Path, PathBuf};
use zip::write::SimpleFileOptions;

/// The variable the packaged scripts read their root from.
pub const ROOT_VARIABLE: &str = "AUTOGRADER_ROOT";

/// Flags the packaged `run_autograder` sets itself: passing one through
/// would contradict it.
const OWN_FLAGS: [&str; 13] = [
    "--submission",
    "--class",
    "--engine",
    "--program",
    "--format",
    "--output",
    "--output-dir",
    "--root",
    "--snapshots",
    "--overlay",
    "--list",
    "--rules",
    "--adapter",
];

/// What goes into a Gradescope autograder.
#[derive(Clone, Debug)]
pub struct GradescopeSpec {
    /// Scenario files or folders (`--scenarios`).
    pub scenarios: Vec<PathBuf>,
    /// The scenario root: names are paths relative to it (`--root`).
    pub root: PathBuf,
    /// Where the scenarios' snapshots are (`--snapshots`).
    pub snapshots: PathBuf,
    /// The course's starter files copied over each upload (`--overlay`).
    pub overlay: Option<PathBuf>,
    /// A course's hook file (`--adapter`): packaged as `adapter/<name>`
    /// with the course's headers beside it, as the build reads them.
    pub adapter: Option<PathBuf>,
    /// `--rules` files: packaged as `rules/<n>.toml` and named by the
    /// command.
    pub rules: Vec<PathBuf>,
    /// More `grade` flags, as they will be passed (`--timeout 5`, ...).
    pub flags: Vec<String>,
    /// The chessgrade binary to ship (the running one).
    pub binary: PathBuf,
}

/// What a package holds.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Packed {
    pub scenarios: usize,
    pub snapshots: usize,
    /// Scenarios with no snapshot (fine for a console course, whose
    /// expected transcripts are the reference engine's; a Lab 3 run or an
    /// engine would stop at them).
    pub without_snapshot: Vec<String>,
    pub overlay_files: usize,
    /// The hook file and the course's headers beside it (0: no `--adapter`).
    pub adapter_files: usize,
    /// Rule files (the scenarios' own and `--rules`).
    pub rule_files: usize,
    /// The zip's size in bytes.
    pub bytes: u64,
    /// The grading command `run_autograder` runs.
    pub command: String,
}

impl GradescopeSpec {
    /// Refuses a passed-through flag that the packaged script sets itself.
    pub fn check_flags(&self) -> Result<(), StaffError> {
        for f in &self.flags {
            let name = f.split('=').next().unwrap_or(f);
            if OWN_FLAGS.contains(&name) {
                return Err(StaffError::Usage(format!(
                    "`{f}`: the packaged run_autograder sets {name} itself; give it to `package gradescope` before `--` (the scenarios, --root, --snapshots, --rules, --overlay, --adapter)"
                )));
            }
        }
        if self.overlay.is_some() && self.adapter.is_some() {
            return Err(StaffError::Usage(
                "--adapter grades a course's C++ classes through its hook file; --overlay is a console course's starter files: give one or the other".into(),
            ));
        }
        Ok(())
    }

    /// The `grade` command `run_autograder` runs, from `source/` (the
    /// root's shell variable left for the script to expand).
    pub fn command(&self) -> String {
        let mut cmd = String::from(
            "./chessgrade grade --submission \"$ROOT/submission\" scenarios --root scenarios --snapshots snapshots",
        );
        if self.overlay.is_some() {
            cmd.push_str(" --overlay overlay");
        }
        if let Some(name) = self.adapter_name() {
            cmd.push_str(&format!(
                " --adapter {}",
                shell_quote(&format!("adapter/{name}"))
            ));
        }
        for i in 0..self.rules.len() {
            cmd.push_str(&format!(" --rules rules/{}.toml", i + 1));
        }
        for f in &self.flags {
            cmd.push(' ');
            cmd.push_str(&shell_quote(f));
        }
        cmd.push_str(" --format gradescope --output \"$ROOT/results/results.json\"");
        cmd
    }

    /// The hook file's name in the package (its own file name).
    fn adapter_name(&self) -> Option<String> {
        let file = self.adapter.as_ref()?.file_name()?;
        Some(file.to_string_lossy().into_owned())
    }

    /// Writes the autograder zip to `out` (atomically).
    pub fn write(&self, out: &Path) -> Result<Packed, StaffError> {
        self.check_flags()?;
        let batch = BatchSpec {
            paths: self.scenarios.clone(),
            root: self.root.clone(),
            snapshots: self.snapshots.clone(),
            filters: Vec::new(),
            exact: false,
            partition: None,
            jobs: 1,
            fail_fast: false,
            allow_empty: false,
            mode: SnapshotMode::Check,
            caps: crate::scenario::Caps::default(),
            rules: self.rules.clone(),
        };
        let discovered = batch.discover()?;
        if let Some(first) = discovered.errors.first() {
            return Err(StaffError::Usage(format!(
                "cannot package the scenarios: {first}{}",
                match discovered.errors.len() {
                    1 => String::new(),
                    n => format!(" (and {} more)", n - 1),
                }
            )));
        }
        if let Some(overlay) = &self.overlay
            && !overlay.is_dir()
        {
            return Err(StaffError::Usage(format!(
                "--overlay {}: not a folder",
                overlay.display()
            )));
        }
        // Checked before anything is written, as `grade --adapter` checks
        // it (compiled against the course's headers, linked with the kit,
        // with `grade`'s default compiler and flags): a hook file that
        // does not compile or lacks a hook is found now, not at the first
        // upload on Gradescope.
        let adapter = match &self.adapter {
            Some(hook_file) => {
                use crate::submission::{DEFAULT_COMPILE_SECONDS, DEFAULT_COMPILER};
                let timeout = std::time::Duration::from_secs_f64(DEFAULT_COMPILE_SECONDS);
                let check = crate::submission::CppOptions::new(DEFAULT_COMPILER, timeout);
                let hooks = crate::submission::CourseHooks::load(hook_file, &check)
                    .map_err(|e| StaffError::Hooks(e.to_string()))?;
                Some((hooks.text.into_bytes(), hooks.headers))
            }
            None => None,
        };
        let store = SnapshotStore::new(&self.snapshots);
        // Reading the staff's files, or writing the zip.
        let staff = |target: &Path, error: io::Error| {
            let what = if target == out {
                "write the zip"
            } else {
                "read"
            };
            StaffError::Usage(format!("cannot {what} {}: {error}", target.display()))
        };
        let parent = match out.parent() {
            Some(p) if !p.as_os_str().is_empty() => p,
            _ => Path::new("."),
        };
        let tmp = tempfile::Builder::new()
            .prefix(".chessgrade-package-")
            .suffix(".zip.tmp")
            .tempfile_in(parent)
            .map_err(|e| staff(out, e))?;
        let mut zip = Zip {
            w: zip::ZipWriter::new(tmp.reopen().map_err(|e| staff(out, e))?),
        };
        let fail = |e: io::Error| staff(out, e);
        zip.text("setup.sh", SETUP, 0o755).map_err(fail)?;
        zip.text("run_autograder", &self.run_autograder(), 0o755)
            .map_err(fail)?;
        zip.binary("chessgrade", &self.binary)
            .map_err(|e| staff(&self.binary, e))?;
        let mut packed = Packed {
            scenarios: 0,
            snapshots: 0,
            without_snapshot: Vec::new(),
            overlay_files: 0,
            adapter_files: 0,
            rule_files: 0,
            bytes: 0,
            command: self.command(),
        };
        for found in &discovered.found {
            let name = zip_name(&found.rel).ok_or_else(|| {
                StaffError::Usage(format!(
                    "{}: a scenario name that is not UTF-8 cannot go into the zip",
                    found.path.display()
                ))
            })?;
            zip.file(&format!("scenarios/{name}"), &found.path, 0o644)
                .map_err(|e| staff(&found.path, e))?;
            packed.scenarios += 1;
            let mut any = false;
            for snap in store.files_for(&found.rel).iter().filter(|p| p.is_file()) {
                let rel = snap.strip_prefix(&self.snapshots).ok().and_then(zip_name);
                if let Some(rel) = rel {
                    zip.file(&format!("snapshots/{rel}"), snap, 0o644)
                        .map_err(|e| staff(snap, e))?;
                    packed.snapshots += 1;
                    any = true;
                }
            }
            if !any {
                packed.without_snapshot.push(name);
            }
        }
        for (path, text) in self.rule_files(&discovered.found)? {
            zip.text(&path, &text, 0o644).map_err(fail)?;
            packed.rule_files += 1;
        }
        // The empty folder keeps `--snapshots snapshots` valid for a
        // console course that has none.
        zip.dir("snapshots/").map_err(fail)?;
        if let Some(overlay) = &self.overlay {
            zip.dir("overlay/").map_err(fail)?;
            for entry in walkdir::WalkDir::new(overlay).sort_by_file_name() {
                let entry = entry.map_err(|e| staff(overlay, io::Error::other(e)))?;
                if !entry.file_type().is_file() {
                    continue;
                }
                let rel = entry.path().strip_prefix(overlay).ok().and_then(zip_name);
                let Some(rel) = rel else { continue };
                let mode = entry
                    .metadata()
                    .map(|m| m.permissions().mode() & 0o777)
                    .unwrap_or(0o644);
                zip.file(&format!("overlay/{rel}"), entry.path(), mode)
                    .map_err(|e| staff(entry.path(), e))?;
                packed.overlay_files += 1;
            }
        }
        if let (Some((text, headers)), Some(name)) = (&adapter, self.adapter_name()) {
            zip.dir("adapter/").map_err(fail)?;
            zip.bytes(&format!("adapter/{name}"), text, 0o644)
                .map_err(fail)?;
            packed.adapter_files += 1;
            for (rel, bytes) in headers {
                let Some(rel) = zip_name(rel) else { continue };
                zip.bytes(&format!("adapter/{rel}"), bytes, 0o644)
                    .map_err(fail)?;
                packed.adapter_files += 1;
            }
        }
        zip.w.finish().map_err(|e| fail(io::Error::other(e)))?;
        // A temporary file is private (0600); the zip is for whoever
        // uploads it.
        use std::os::unix::fs::PermissionsExt;
        std::fs::set_permissions(tmp.path(), std::fs::Permissions::from_mode(0o644))
            .map_err(fail)?;
        let file = tmp.persist(out).map_err(|e| staff(out, e.error))?;
        file.sync_all().map_err(fail)?;
        packed.bytes = file.metadata().map_err(fail)?.len();
        Ok(packed)
    }

    /// The rule files the scenarios run under, as zip entries: a
    /// `--rules` file as `rules/<n>.toml`, a scenario's own (named by its
    /// `@rules`, or a folder's `rules.toml`) where it lies below the root,
    /// so the scenario finds it as before. Each is written flat. One
    /// outside the root that no `--rules` names would be lost: the staff's
    /// error.
    fn rule_files(
        &self,
        found: &[crate::runner::Found],
    ) -> Result<Vec<(String, String)>, StaffError> {
        let canonical = |p: &Path| p.canonicalize().unwrap_or_else(|_| p.to_path_buf());
        let flags: Vec<PathBuf> = self.rules.iter().map(|p| canonical(p)).collect();
        let root = canonical(&self.root);
        let mut entries: Vec<(String, String)> = Vec::new();
        for (i, file) in self.rules.iter().enumerate() {
            let rules =
                crate::rulefile::load(file).map_err(|d| StaffError::Rules(d.to_string()))?;
            entries.push((
                format!("rules/{}.toml", i + 1),
                crate::rulefile::show(&rules),
            ));
        }
        // A scenario that does not load (a bad line, a rule file that
        // cannot be read) would be every upload's input error on
        // Gradescope: the staff's now.
        let mut broken = Vec::new();
        for f in found {
            let scenario = match f.load() {
                Ok(scenario) => scenario,
                Err(diag) => {
                    broken.push(diag.to_string());
                    continue;
                }
            };
            let d = &scenario.directives;
            let Some(file) = d.rules_file.as_ref().filter(|file| !flags.contains(file)) else {
                continue;
            };
            let rel = file.strip_prefix(&root).ok().and_then(zip_name).ok_or_else(|| {
                StaffError::Usage(format!(
                    "cannot package {}: its rule file {} lies outside the scenario root {}; move it below the root, or name it with --rules",
                    f.path.display(),
                    file.display(),
                    self.root.display()
                ))
            })?;
            let name = format!("scenarios/{rel}");
            if !entries.iter().any(|(n, _)| *n == name) {
                entries.push((name, crate::rulefile::show(&d.rules)));
            }
        }
        if let Some(first) = broken.first() {
            return Err(StaffError::Rules(format!(
                "cannot package a scenario that does not load{}: {first}",
                match broken.len() {
                    1 => String::new(),
                    n => format!(" ({n} of them; the first)"),
                }
            )));
        }
        Ok(entries)
    }

    /// The packaged `run_autograder` script.
    pub fn run_autograder(&self) -> String {
        format!(
            "#!/usr/bin/env bash\n\
             # Written by `chessgrade package gradescope` (chessgrade {version}).\n\
             # Grades the upload in $ROOT/submission on the packaged scenarios\n\
             # and writes Gradescope's $ROOT/results/results.json. ROOT is\n\
             # /autograder on Gradescope (set {var} to try it elsewhere).\n\
             ROOT=\"${{{var}:-/autograder}}\"\n\
             cd \"$ROOT/source\" || exit 2\n\
             mkdir -p \"$ROOT/results\"\n\
             {command}\n\
             code=$?\n\
             # 0: every scenario passed, 1: some failed; both are the student's\n\
             # grade, in results.json. 2 is the staff's problem (its message is\n\
             # in the log).\n\
             if [ \"$code\" -le 1 ]; then exit 0; fi\n\
             exit \"$code\"\n",
            version = env!("CARGO_PKG_VERSION"),
            var = ROOT_VARIABLE,
            command = self.command(),
        )
    }
}

/// Gradescope's `setup.sh`: what the grader needs on its Ubuntu image.
const SETUP: &str = "#!/usr/bin/env bash\n\
# Written by `chessgrade package gradescope`: what grading needs on\n\
# Gradescope's Ubuntu image, a C++ compiler and make for the uploads.\n\
set -e\n\
apt-get update\n\
DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends g++ make\n\
chmod +x \"${AUTOGRADER_ROOT:-/autograder}/source/chessgrade\" \"${AUTOGRADER_ROOT:-/autograder}/source/run_autograder\"\n";

/// A path inside the zip: UTF-8, `/`-separated.
fn zip_name(rel: &Path) -> Option<String> {
    let parts: Option<Vec<&str>> = rel.components().map(|c| c.as_os_str().to_str()).collect();
    parts.map(|p| p.join("/"))
}

/// One word for bash: as it is when it is plain, else single-quoted.
fn shell_quote(word: &str) -> String {
    let plain = !word.is_empty()
        && word
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || "-_./=:,+@%".contains(c));
    if plain {
        word.to_string()
    } else {
        format!("'{}'", word.replace('\'', "'\\''"))
    }
}

/// The zip being written: entries with their Unix modes, dated 1980 (no
/// clock in the bytes).
struct Zip {
    w: zip::ZipWriter<File>,
}

impl Zip {
    fn options(mode: u32) -> SimpleFileOptions {
        SimpleFileOptions::default()
            .compression_method(zip::CompressionMethod::Deflated)
            .unix_permissions(mode)
            .large_file(true)
    }

    fn text(&mut self, name: &str, text: &str, mode: u32) -> io::Result<()> {
        self.bytes(name, text.as_bytes(), mode)
    }

    fn bytes(&mut self, name: &str, bytes: &[u8], mode: u32) -> io::Result<()> {
        self.w
            .start_file(name, Self::options(mode))
            .map_err(io::Error::other)?;
        self.w.write_all(bytes)
    }

    fn file(&mut self, name: &str, path: &Path, mode: u32) -> io::Result<()> {
        let mut from = File::open(path)?;
        self.w
            .start_file(name, Self::options(mode))
            .map_err(io::Error::other)?;
        io::copy(&mut from, &mut self.w)?;
        Ok(())
    }

    /// The grader's binary, compressed fast: a debug build is about 100 MB,
    /// and deflate's default level spends ten times as long on it for a
    /// few percent.
    fn binary(&mut self, name: &str, path: &Path) -> io::Result<()> {
        let mut from = File::open(path)?;
        let options = Self::options(0o755).compression_level(Some(1));
        self.w.start_file(name, options).map_err(io::Error::other)?;
        io::copy(&mut from, &mut self.w)?;
        Ok(())
    }

    fn dir(&mut self, name: &str) -> io::Result<()> {
        self.w
            .add_directory(name, Self::options(0o755))
            .map_err(io::Error::other)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn spec(flags: &[&str]) -> GradescopeSpec {
        GradescopeSpec {
            scenarios: vec!["scenarios/lab3".into()],
            root: "scenarios".into(),
            snapshots: "snapshots".into(),
            overlay: None,
            adapter: None,
            rules: Vec::new(),
            flags: flags.iter().map(|f| f.to_string()).collect(),
            binary: "chessgrade".into(),
        }
    }

    /// The entries of the zip at `path`, with their text.
    fn entries(path: &Path) -> Vec<(String, String)> {
        let mut zip = zip::ZipArchive::new(File::open(path).unwrap()).unwrap();
        (0..zip.len())
            .map(|i| {
                let mut entry = zip.by_index(i).unwrap();
                let mut text = String::new();
                let _ = std::io::Read::read_to_string(&mut entry, &mut text);
                (entry.name().unwrap().to_string(), text)
            })
            .collect()
    }

    #[test]
    fn the_rule_files_the_scenarios_run_under_are_packaged_flat() {
        let dir = tempfile::tempdir().unwrap();
        let d = dir.path();
        let write = |rel: &str, text: &str| {
            let p = d.join(rel);
            std::fs::create_dir_all(p.parent().unwrap()).unwrap();
            std::fs::write(p, text).unwrap();
        };
        write(
            "s/base.toml",
            "extends = \"standard\"\n[pieces.A]\nbetza = \"BN\"\n",
        );
        write(
            "s/v/capa.toml",
            "extends = \"../base.toml\"\nname = \"capa\"\n",
        );
        write(
            "s/v/a.txt",
            "@rules capa.toml\n1\nfen 4k3/8/8/8/8/8/8/A3K3 w - - 0 1\n~\n",
        );
        write("s/l/rules.toml", "extends = \"lab3\"\nen_passant = true\n");
        write("s/l/b.txt", "1\n2 2\n~\n");
        write("flag.toml", "extends = \"jhu\"\ndouble_step = false\n");
        write("s/j/c.txt", "@rules jhu\n1\n2 2\n~\n");
        let spec = GradescopeSpec {
            scenarios: vec![d.join("s")],
            root: d.join("s"),
            snapshots: d.join("snaps"),
            rules: vec![d.join("flag.toml")],
            binary: std::env::current_exe().unwrap(),
            ..spec(&[])
        };
        let out = d.join("a.zip");
        let packed = spec.write(&out).unwrap();
        assert_eq!(packed.rule_files, 3);
        assert!(
            packed.command.contains(" --rules rules/1.toml"),
            "{}",
            packed.command
        );
        let zip = entries(&out);
        let text = |name: &str| zip.iter().find(|(n, _)| n == name).map(|(_, t)| t.clone());
        // Flat: no `extends` to follow, the same rules.
        let capa = text("scenarios/v/capa.toml").expect("the scenario's own file");
        assert!(
            capa.contains("extends = \"standard\"") && capa.contains("[pieces.A]"),
            "{capa}"
        );
        let lab3 = text("scenarios/l/rules.toml").expect("the folder's file");
        assert!(lab3.contains("en_passant = true"), "{lab3}");
        let flag = text("rules/1.toml").expect("the --rules file");
        assert!(flag.contains("double_step = false"), "{flag}");
        assert!(
            text("scenarios/base.toml").is_none(),
            "extended files are flattened in"
        );
        // A rule file outside the root that no --rules names would be lost.
        write("elsewhere.toml", "extends = \"cuhk\"\n");
        write("s/k/d.txt", "@rules ../../elsewhere.toml\n1\n2 2\n~\n");
        let err = spec.write(&out).unwrap_err().to_string();
        assert!(err.contains("lies outside the scenario root"), "{err}");
        // A scenario whose rule file cannot be read would be every
        // upload's input error: the staff's now, naming it.
        std::fs::remove_file(d.join("s/k/d.txt")).unwrap();
        write("s/k/e.txt", "@rules nowhere.toml\n1\n2 2\n~\n");
        let err = spec.write(&out).unwrap_err().to_string();
        assert!(
            err.contains("cannot package a scenario that does not load")
                && err.contains("s/k/e.txt:1:8: no rule file `nowhere.toml`"),
            "{err}"
        );
    }

    #[test]
    fn flags_are_passed_quoted_and_the_scripts_own_refused() {
        let s = spec(&[
            "--timeout",
            "5",
            "--cflags",
            "-O2 -Wall",
            "--build",
            "make 'x'",
        ]);
        assert_eq!(
            s.command(),
            "./chessgrade grade --submission \"$ROOT/submission\" scenarios --root scenarios --snapshots snapshots --timeout 5 --cflags '-O2 -Wall' --build 'make '\\''x'\\''' --format gradescope --output \"$ROOT/results/results.json\""
        );
        assert!(s.check_flags().is_ok());
        for own in ["--format", "--output=x.json", "--submission"] {
            let err = spec(&[own]).check_flags().unwrap_err();
            assert!(err.to_string().contains("sets"), "{err}");
        }
    }

    #[test]
    fn run_autograder_reads_its_root_from_the_variable() {
        let script = spec(&[]).run_autograder();
        assert!(script.starts_with("#!/usr/bin/env bash\n"));
        assert!(script.contains("ROOT=\"${AUTOGRADER_ROOT:-/autograder}\"\n"));
        assert!(script.contains("cd \"$ROOT/source\" || exit 2\n"));
        assert!(!script.contains("--overlay"));
    }
}
