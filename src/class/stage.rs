//! Every member's upload copied out of the class folder before any
//! student code runs, where nothing else keeps one member from another's.
//!
//! A member's build and program are sandboxed; with Landlock a sandbox
//! sees its own folder and the system, so no classmate's upload is in
//! reach whatever the class folder's permissions. Without Landlock (an
//! older container profile) a build or program reaches whatever its uid
//! may, and a class folder is often world-writable (an LMS export unpacked
//! by hand, a shared folder): a hostile member built early could append to
//! the sources of every member built after it. So there, before the first
//! build, every upload (a folder, or a zip) is copied into a folder of the
//! grader's own (mode 0700), and the members are graded from those
//! copies. A root grader's sandboxes run as uids of their own and cannot
//! enter it; an unprivileged grader's share its uid, and its isolation line
//! says that files are not confined there.
//!
//! Only regular files and folders are copied (a link or a FIFO in an upload
//! is no file of it); the copy is removed with the class run.

use super::Member;
use std::io;
use std::path::Path;

/// The members' uploads, copied (see the module's doc), with the members
/// pointing at the copies; `None` where Landlock keeps them apart anyway.
pub struct Staged {
    _dir: tempfile::TempDir,
    pub members: Vec<Member>,
}

/// Copies the uploads of `members` out of the class folder when the
/// sandbox does not confine files (no Landlock); `Ok(None)` where it does.
pub fn stage(members: &[Member]) -> io::Result<Option<Staged>> {
    if crate::sandbox::isolation().files() {
        return Ok(None);
    }
    stage_into(members).map(Some)
}

fn stage_into(members: &[Member]) -> io::Result<Staged> {
    use std::os::unix::fs::PermissionsExt;
    let dir = tempfile::Builder::new()
        .prefix("chessgrade-class-")
        .tempdir()?;
    std::fs::set_permissions(dir.path(), std::fs::Permissions::from_mode(0o700))?;
    let mut staged = Vec::with_capacity(members.len());
    for (i, member) in members.iter().enumerate() {
        let name = member.dir.file_name().unwrap_or_default();
        let to = dir.path().join(i.to_string()).join(name);
        std::fs::create_dir_all(to.parent().expect("in its folder"))?;
        copy(&member.dir, &to)?;
        staged.push(Member {
            dir: to,
            ..member.clone()
        });
    }
    Ok(Staged {
        _dir: dir,
        members: staged,
    })
}

/// Copies the regular file or folder `from` to `to` (folders recursively,
/// regular files and folders only; links are not followed).
fn copy(from: &Path, to: &Path) -> io::Result<()> {
    for entry in walkdir::WalkDir::new(from).follow_links(false) {
        let entry = entry.map_err(io::Error::other)?;
        let rel = entry.path().strip_prefix(from).expect("below the root");
        let target = if rel.as_os_str().is_empty() {
            to.to_path_buf()
        } else {
            to.join(rel)
        };
        if entry.file_type().is_dir() {
            std::fs::create_dir_all(&target)?;
        } else if entry.file_type().is_file() {
            std::fs::copy(entry.path(), &target)?;
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The copies hold each upload's files (a folder's and a zip), no
    /// link, and changing the class folder afterwards changes no copy.
    #[test]
    fn the_copies_are_taken_once_and_kept_apart_from_the_class_folder() {
        let class = tempfile::tempdir().unwrap();
        let ada = class.path().join("ada");
        std::fs::create_dir_all(ada.join("src")).unwrap();
        std::fs::write(ada.join("src/Board.cc"), "int board;\n").unwrap();
        std::os::unix::fs::symlink("/etc/passwd", ada.join("link")).unwrap();
        let bob = class.path().join("bob.zip");
        std::fs::write(&bob, "PK zip bytes").unwrap();
        let members: Vec<Member> = [("ada", &ada), ("bob", &bob)]
            .into_iter()
            .map(|(name, dir)| Member {
                name: name.into(),
                dir: dir.clone(),
                students: Vec::new(),
            })
            .collect();
        let staged = stage_into(&members).unwrap();
        let copy = &staged.members[0].dir;
        assert_eq!(copy.file_name().unwrap(), "ada");
        assert_ne!(copy, &ada);
        std::fs::write(ada.join("src/Board.cc"), "// pwned\n").unwrap();
        assert_eq!(
            std::fs::read_to_string(copy.join("src/Board.cc")).unwrap(),
            "int board;\n"
        );
        assert!(!copy.join("link").exists(), "links are no files");
        assert_eq!(
            std::fs::read(&staged.members[1].dir).unwrap(),
            b"PK zip bytes"
        );
        assert_eq!(staged.members[1].name, "bob");
    }
}
