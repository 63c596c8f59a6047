//! Zip uploads (a Canvas or Moodle download gives one per student; a
//! student may upload a zip to `--submission`): unpacked into a private
//! folder with the `zip` crate, never a shell `unzip`, and refused whole,
//! with the reason, when an entry could write outside that folder or the
//! archive is a bomb. A refusal is that student's result alone.
//!
//! Refused: entries with absolute paths or `..`, symbolic links, devices
//! and FIFOs (an entry's Unix mode), encrypted entries, more than
//! [`MAX_UPLOAD_FILES`] entries or [`MAX_UPLOAD_BYTES`] unpacked, and an
//! entry whose size is over 100 times its compressed size once past
//! 1 MiB (a zip bomb's ratio; honest sources compress about 4:1). Sizes
//! are counted as the bytes come out, not taken from the headers, which a
//! hostile archive can fake.

use super::{MAX_UPLOAD_BYTES, MAX_UPLOAD_FILES};
use std::io::{Read, Write};
use std::path::Path;

/// The highest ratio of unpacked to compressed size allowed past
/// [`RATIO_FLOOR`] bytes.
const MAX_RATIO: u64 = 100;
const RATIO_FLOOR: u64 = 1 << 20;

/// Does this file start like a zip archive?
pub(super) fn is_zip(path: &Path) -> bool {
    let mut head = [0u8; 4];
    std::fs::File::open(path)
        .and_then(|mut f| f.read_exact(&mut head))
        .is_ok()
        && (head == *b"PK\x03\x04" || head == *b"PK\x05\x06")
}

/// Unpacks the zip at `zip` into the folder `into` (created), or says
/// why it was refused.
pub(super) fn unpack(zip: &Path, into: &Path) -> Result<(), String> {
    let name = zip
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    let refuse = |why: String| format!("the archive {name} was refused: {why}");
    let file = std::fs::File::open(zip).map_err(|e| refuse(e.to_string()))?;
    let mut archive =
        zip::ZipArchive::new(file).map_err(|e| refuse(format!("not a readable zip ({e})")))?;
    if archive.len() > MAX_UPLOAD_FILES {
        return Err(refuse(format!(
            "it holds {} entries, more than {MAX_UPLOAD_FILES}",
            archive.len()
        )));
    }
    std::fs::create_dir_all(into).map_err(|e| refuse(e.to_string()))?;
    let mut total = 0u64;
    for i in 0..archive.len() {
        let mut entry = archive
            .by_index(i)
            .map_err(|e| refuse(format!("entry {i} cannot be read ({e})")))?;
        let shown = entry
            .name()
            .map(|n| n.into_owned())
            .unwrap_or_else(|_| format!("entry {i}"));
        let absolute = shown.starts_with(['/', '\\']) || shown.as_bytes().get(1) == Some(&b':');
        let Some(rel) = entry.enclosed_name().filter(|_| !absolute) else {
            return Err(refuse(format!(
                "{shown:?} would be written outside the upload (an absolute path or ..)"
            )));
        };
        if entry.encrypted() {
            return Err(refuse(format!("{shown:?} is encrypted")));
        }
        let mode = entry.unix_mode().unwrap_or(0) & 0o170000;
        if entry.is_symlink() || !matches!(mode, 0 | 0o100000 | 0o040000) {
            return Err(refuse(format!(
                "{shown:?} is a symbolic link, device or FIFO, not a file"
            )));
        }
        let target = into.join(&rel);
        if entry.is_dir() {
            std::fs::create_dir_all(&target).map_err(|e| refuse(e.to_string()))?;
            continue;
        }
        if let Some(parent) = target.parent() {
            std::fs::create_dir_all(parent).map_err(|e| refuse(e.to_string()))?;
        }
        let compressed = entry.compressed_size().max(1);
        let mut out = std::fs::File::create(&target).map_err(|e| refuse(e.to_string()))?;
        let mut buf = [0u8; 64 << 10];
        let mut written = 0u64;
        loop {
            let n = entry
                .read(&mut buf)
                .map_err(|e| refuse(format!("{shown:?} cannot be unpacked ({e})")))?;
            if n == 0 {
                break;
            }
            written += n as u64;
            total += n as u64;
            if total > MAX_UPLOAD_BYTES {
                return Err(refuse(format!(
                    "it unpacks to more than {} MiB",
                    MAX_UPLOAD_BYTES >> 20
                )));
            }
            if written > RATIO_FLOOR && written / compressed > MAX_RATIO {
                return Err(refuse(format!(
                    "{shown:?} unpacks to over {MAX_RATIO} times its packed size (a zip bomb)"
                )));
            }
            out.write_all(&buf[..n])
                .map_err(|e| refuse(e.to_string()))?;
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use zip::write::SimpleFileOptions;

    /// A zip of `entries` (name, bytes); `mode` sets a Unix mode on one.
    fn zip_of(entries: &[(&str, &[u8])], link: Option<&str>) -> tempfile::NamedTempFile {
        let file = tempfile::NamedTempFile::new().unwrap();
        let mut w = zip::ZipWriter::new(file.reopen().unwrap());
        let opts = SimpleFileOptions::default();
        for (name, bytes) in entries {
            w.start_file(*name, opts).unwrap();
            w.write_all(bytes).unwrap();
        }
        if let Some(target) = link {
            w.add_symlink("escape.h", target, opts).unwrap();
        }
        w.finish().unwrap();
        file
    }

    #[test]
    fn an_honest_zip_unpacks_with_its_folders() {
        let zip = zip_of(
            &[("Lab3/ChessBoard.hh", b"x"), ("Lab3/src/a.cc", b"int a;")],
            None,
        );
        assert!(is_zip(zip.path()));
        let out = tempfile::tempdir().unwrap();
        unpack(zip.path(), out.path()).unwrap();
        assert_eq!(
            std::fs::read(out.path().join("Lab3/src/a.cc")).unwrap(),
            b"int a;"
        );
    }

    #[test]
    fn hostile_zips_are_refused_with_the_reason() {
        let out = tempfile::tempdir().unwrap();
        let escape = zip_of(&[("../../outside.txt", b"x")], None);
        let err = unpack(escape.path(), &out.path().join("a")).unwrap_err();
        assert!(
            err.contains("\"../../outside.txt\" would be written outside the upload"),
            "{err}"
        );
        assert!(!out.path().join("outside.txt").exists());
        let absolute = zip_of(&[("/etc/cron.d/x", b"x")], None);
        assert!(unpack(absolute.path(), &out.path().join("b")).is_err());
        let link = zip_of(&[("main.cpp", b"int main(){}")], Some("/etc/passwd"));
        let err = unpack(link.path(), &out.path().join("c")).unwrap_err();
        assert!(err.contains("\"escape.h\" is a symbolic link"), "{err}");
        let bomb = zip_of(&[("zeros.txt", &vec![0u8; 8 << 20])], None);
        let err = unpack(bomb.path(), &out.path().join("d")).unwrap_err();
        assert!(err.contains("(a zip bomb)"), "{err}");
        let garbage = tempfile::NamedTempFile::new().unwrap();
        std::fs::write(garbage.path(), b"PK\x03\x04 and then nothing").unwrap();
        assert!(
            unpack(garbage.path(), &out.path().join("e"))
                .unwrap_err()
                .contains("not a readable zip")
        );
    }
}
