//! What is never the upload, by name: what an archiver, an operating
//! system, a version-control tool or an IDE leaves beside a student's
//! program. Names only; build products are told by their content
//! (`super::binary`), since a student may name a source anything.
//!
//! Two kinds of folder: the ones that never hold the student's work
//! (`__MACOSX/`, `.git/`, `.vscode/`, `*.dSYM/`, ...) are not even walked;
//! an IDE's build-output folders (`Debug/`, `x64/`, `cmake-build-*/`, a
//! CMake build folder) are left out only when they hold no C++ source or
//! header, so a student who kept their code in a folder called `Release`
//! still has it graded.

/// Folders that never hold the student's program: not walked at all.
pub fn is_debris_dir(name: &str) -> bool {
    matches!(
        name,
        "__MACOSX"
            | ".git"
            | ".svn"
            | ".hg"
            | ".bzr"
            | "CVS"
            | ".vscode"
            | ".idea"
            | ".vs"
            | ".fleet"
            | ".cache"
            | ".ccls-cache"
            | ".clangd"
            | "xcuserdata"
            | ".Trashes"
            | ".Spotlight-V100"
            | ".fseventsd"
    ) || name.ends_with(".dSYM")
        || name.ends_with(".xcodeproj")
        || name.ends_with(".xcworkspace")
}

/// Folders an IDE or a build writes its output to: left out unless they
/// hold sources (see the module doc). A folder holding `CMakeCache.txt` is
/// one too, whatever its name (`build/`): CMake refuses a cache made in
/// another folder.
pub(super) fn is_build_output_dir(name: &str) -> bool {
    matches!(
        name,
        "x64" | "x86" | "Win32" | "ARM64" | "Debug" | "Release" | "obj" | "ipch"
    ) || name.starts_with("cmake-build-")
}

/// Files that are packaging debris: macOS's `.DS_Store` and AppleDouble
/// `._*` companions, Windows's `Thumbs.db` and `desktop.ini`, an IDE's
/// per-user files.
pub(super) fn is_debris_file(name: &str) -> bool {
    name.starts_with("._")
        || matches!(
            name,
            ".DS_Store" | "Thumbs.db" | "ehthumbs.db" | "desktop.ini" | "Desktop.ini" | "Icon\r"
        )
        || name.ends_with(".suo")
        || name.ends_with(".user")
        || name.ends_with(".VC.db")
        || name.ends_with(".VC.opendb")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn debris_is_told_by_name_and_sources_never_are() {
        for dir in ["__MACOSX", ".git", ".vscode", ".idea", ".vs", "chess.dSYM"] {
            assert!(is_debris_dir(dir), "{dir}");
        }
        for dir in ["Debug", "Release", "x64", "cmake-build-debug"] {
            assert!(is_build_output_dir(dir), "{dir}");
            assert!(
                !is_debris_dir(dir),
                "{dir} is left out only when it holds no sources"
            );
        }
        for file in [
            ".DS_Store",
            "._ChessBoard.cc",
            "Thumbs.db",
            "desktop.ini",
            "Chess.vcxproj.user",
        ] {
            assert!(is_debris_file(file), "{file}");
        }
        for keep in ["src", "include", "Source", "Header", "test_files", "build"] {
            assert!(!is_debris_dir(keep) && !is_build_output_dir(keep), "{keep}");
        }
        for keep in [
            "main.cpp",
            "Makefile",
            "Chess.vcxproj",
            "README.md",
            ".gitignore",
        ] {
            assert!(!is_debris_file(keep), "{keep}");
        }
    }
}
