//! File-system helpers shared by the stages: atomic writes, reading and writing the committed JSON
//! state files, and the site lock.
//!
//! A write either lands whole or not at all (temp file in the same folder, fsync, rename, fsync
//! of the folder), so a killed run never leaves a half-written content or state file.

use std::fs::File;
use std::io::Write;
use std::path::{Path, PathBuf};

use anyhow::{Context, Result};

/// Writes `bytes` to `path` atomically, creating parent folders.
pub fn write_atomic(path: &Path, bytes: &[u8]) -> Result<()> {
    let dir = path
        .parent()
        .filter(|p| !p.as_os_str().is_empty())
        .unwrap_or(Path::new("."));
    std::fs::create_dir_all(dir).with_context(|| format!("creating folder {}", dir.display()))?;
    let name = path
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    let mut tmp = tempfile::Builder::new()
        .prefix(&format!(".{name}."))
        .suffix(".tmp")
        .tempfile_in(dir)
        .with_context(|| format!("creating a temporary file in {}", dir.display()))?;
    // Keep the mode of the file being replaced; a new file gets the usual 0644 (tempfile's
    // default of 0600 would hide content from other users of a shared checkout).
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        let mode = std::fs::metadata(path)
            .map(|m| m.permissions().mode() & 0o7777)
            .unwrap_or(0o644);
        let _ = tmp
            .as_file()
            .set_permissions(std::fs::Permissions::from_mode(mode));
    }
    tmp.write_all(bytes)
        .and_then(|_| tmp.as_file().sync_all())
        .with_context(|| format!("writing {}", path.display()))?;
    tmp.persist(path)
        .map_err(|e| e.error)
        .with_context(|| format!("replacing {}", path.display()))?;
    // Make the rename itself durable.
    if let Ok(d) = File::open(dir) {
        let _ = d.sync_all();
    }
    Ok(())
}

/// Writes `bytes` to `path` unless the file already holds exactly them (so an unchanged output
/// keeps its modification time). Replaces by rename, so a reader never sees half a file; no
/// fsync, because build output is derived and can always be written again. Returns whether it
/// wrote.
pub fn write_if_changed(path: &Path, bytes: &[u8]) -> Result<bool> {
    if let Ok(meta) = std::fs::metadata(path)
        && meta.len() == bytes.len() as u64
        && std::fs::read(path).is_ok_and(|old| old == bytes)
    {
        return Ok(false);
    }
    let dir = path
        .parent()
        .filter(|p| !p.as_os_str().is_empty())
        .unwrap_or(Path::new("."));
    std::fs::create_dir_all(dir).with_context(|| format!("creating folder {}", dir.display()))?;
    let mut tmp = tempfile::Builder::new()
        .prefix(crate::layout::TEMP_PREFIX)
        .suffix(".tmp")
        .tempfile_in(dir)
        .with_context(|| format!("creating a temporary file in {}", dir.display()))?;
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        let _ = tmp
            .as_file()
            .set_permissions(std::fs::Permissions::from_mode(0o644));
    }
    tmp.write_all(bytes)
        .with_context(|| format!("writing {}", path.display()))?;
    tmp.persist(path)
        .map_err(|e| e.error)
        .with_context(|| format!("replacing {}", path.display()))?;
    Ok(true)
}

/// Whether `name` is the temporary name [`write_atomic`] gives a snapshot file
/// (`.HHMM.md.XXXXXX.tmp`): only those are ever removed as leftovers.
pub fn is_snapshot_temp_name(name: &str) -> bool {
    let Some(rest) = name.strip_prefix('.').and_then(|r| r.strip_suffix(".tmp")) else {
        return false;
    };
    let Some((target, random)) = rest.split_once(".md.") else {
        return false;
    };
    target.len() == 4
        && target.bytes().all(|b| b.is_ascii_digit())
        && (1..=32).contains(&random.len())
        && random.bytes().all(|b| b.is_ascii_alphanumeric())
}

/// Removes the temporary files a killed write left under `dir` (a run killed between creating
/// its temp file and renaming it): only names [`is_snapshot_temp_name`] matches, and only files
/// last modified before `older_than` (the time the caller took the site lock, so no write still
/// in progress is touched). Call it holding the lock. Returns the files removed. Linear in the
/// number of entries under `dir`.
pub fn remove_stale_temp_files(dir: &Path, older_than: std::time::SystemTime) -> Vec<PathBuf> {
    let mut removed = Vec::new();
    for entry in walkdir::WalkDir::new(dir)
        .into_iter()
        .filter_map(|e| e.ok())
    {
        if !entry.file_type().is_file()
            || !is_snapshot_temp_name(&entry.file_name().to_string_lossy())
        {
            continue;
        }
        let old = entry
            .metadata()
            .ok()
            .and_then(|m| m.modified().ok())
            .is_some_and(|t| t < older_than);
        if old && std::fs::remove_file(entry.path()).is_ok() {
            removed.push(entry.into_path());
        }
    }
    removed
}

/// Reads a committed JSON state file (`fetch-state.json`, `publish-state.json`): `None` when it
/// does not exist; a file that is not valid JSON of `T` is an error naming it as
/// "not a valid {`what`} file" followed by `fix` (what the user can do about it).
pub fn read_state<T: serde::de::DeserializeOwned>(
    path: &Path,
    what: &str,
    fix: &str,
) -> Result<Option<T>> {
    let text = match std::fs::read_to_string(path) {
        Ok(t) => t,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(None),
        Err(e) => return Err(e).with_context(|| format!("reading {}", path.display())),
    };
    serde_json::from_str(&text)
        .map(Some)
        .with_context(|| format!("{} is not a valid {what} file; {fix}", path.display()))
}

/// Writes a committed JSON state file atomically: pretty JSON (diffs well under git) and a
/// final newline.
pub fn write_state<T: serde::Serialize>(path: &Path, state: &T) -> Result<()> {
    let mut text = serde_json::to_string_pretty(state).expect("state serialises");
    text.push('\n');
    write_atomic(path, text.as_bytes())
}

/// A cache file's bytes: `body`, then its CRC-32 (4 bytes, little-endian), which [`unseal`]
/// verifies, so a cache cut short or corrupted is noticed and rebuilt. CRC-32 (crc32fast, with
/// the CPU's carry-less multiply) rather than [`crate::hash::fnv1a`]: every build verifies the
/// archive's month chunks (144 MB at three years), and FNV-1a's byte-at-a-time loop took
/// a tenth of a second of it. A file sealed the old way (8 bytes of FNV-1a) does not verify:
/// it is rebuilt once.
pub fn seal(mut body: Vec<u8>) -> Vec<u8> {
    let sum = crc32fast::hash(&body);
    body.extend_from_slice(&sum.to_le_bytes());
    body
}

/// The body of a [`seal`]ed file, if its checksum matches.
pub fn unseal(bytes: &[u8]) -> Option<&[u8]> {
    let (body, sum) = bytes.split_at_checked(bytes.len().checked_sub(4)?)?;
    (crc32fast::hash(body).to_le_bytes() == sum).then_some(body)
}

/// `value` as a cache file's bytes: postcard, [`seal`]ed (`None` if it cannot be serialised).
pub fn to_sealed<T: serde::Serialize>(value: &T) -> Option<Vec<u8>> {
    Some(seal(postcard::to_stdvec(value).ok()?))
}

/// The value of a [`to_sealed`] cache file, if its checksum matches and it decodes (not if it
/// was cut short, corrupted or written in another format).
pub fn from_sealed<T: serde::de::DeserializeOwned>(bytes: &[u8]) -> Option<T> {
    postcard::from_bytes(unseal(bytes)?).ok()
}

/// `rel` (a path read from a cache) under `output`, if it stays there: relative, only plain
/// names (no `..`, no root, no `\`, no NUL), and its folder, resolved through symlinks, inside
/// `output` (the canonical output folder). `None` for anything else, which is then left alone.
pub fn confined(output: &Path, rel: &str) -> Option<PathBuf> {
    use std::path::Component;
    let p = Path::new(rel);
    if rel.is_empty()
        || rel.contains(['\0', '\\'])
        || !p.components().all(|c| matches!(c, Component::Normal(_)))
    {
        return None;
    }
    let full = output.join(p);
    let parent = full.parent()?.canonicalize().ok()?;
    parent.starts_with(output).then_some(full)
}

/// An exclusive lock on the site, held while a run changes content/ or the fetch state.
/// Released when dropped, and by the OS if the process dies.
#[derive(Debug)]
pub struct SiteLock {
    _file: File,
    pub path: PathBuf,
}

impl SiteLock {
    /// Takes the lock, waiting for another run to finish; `on_wait` is called once if it has to.
    pub fn acquire(root: &Path, on_wait: impl FnOnce(&Path)) -> Result<SiteLock> {
        let path = crate::layout::lock_file(root);
        let file = File::options()
            .create(true)
            .truncate(false)
            .read(true)
            .write(true)
            .open(&path)
            .with_context(|| format!("opening lock file {}", path.display()))?;
        match file.try_lock() {
            Ok(()) => {}
            Err(std::fs::TryLockError::WouldBlock) => {
                on_wait(&path);
                file.lock()
                    .with_context(|| format!("locking {}", path.display()))?;
            }
            Err(std::fs::TryLockError::Error(e)) => {
                return Err(e).with_context(|| format!("locking {}", path.display()));
            }
        }
        Ok(SiteLock { _file: file, path })
    }

    /// Takes the lock like [`SiteLock::acquire`], telling the user on stderr (once, naming the
    /// lock file) when another matome run holds it: what every command that writes the site does.
    pub fn acquire_or_wait(root: &Path) -> Result<SiteLock> {
        SiteLock::acquire(root, |p| {
            eprintln!(
                "waiting for another matome run to finish (lock {})",
                p.display()
            )
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sealed_cache_files_verify() {
        let bytes = to_sealed(&("a".to_string(), 7u64)).unwrap();
        assert_eq!(
            from_sealed::<(String, u64)>(&bytes),
            Some(("a".to_string(), 7))
        );
        assert!(from_sealed::<(String, u64)>(&bytes[..bytes.len() - 1]).is_none());
        let mut flipped = bytes.clone();
        flipped[0] ^= 1;
        assert!(from_sealed::<(String, u64)>(&flipped).is_none());
        assert!(from_sealed::<(String, u64)>(&[]).is_none());
    }

    #[test]
    fn atomic_write_replaces_and_leaves_no_temp_files() {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("a/b/c.md");
        write_atomic(&p, b"one").unwrap();
        write_atomic(&p, b"two").unwrap();
        assert_eq!(std::fs::read(&p).unwrap(), b"two");
        let names: Vec<_> = std::fs::read_dir(p.parent().unwrap())
            .unwrap()
            .map(|e| e.unwrap().file_name())
            .collect();
        assert_eq!(names, vec![std::ffi::OsString::from("c.md")]);
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt;
            let mode = std::fs::metadata(&p).unwrap().permissions().mode() & 0o777;
            assert_eq!(mode, 0o644, "new files are world-readable like any other");
        }
    }

    /// kill -9 between creating a snapshot's temp file and renaming it left `.HHMM.md.*.tmp`
    /// files in content/ for ever. Only matome's own pattern, only older ones, go.
    #[test]
    fn leftover_snapshot_temp_files_are_removed_and_nothing_else() {
        let dir = tempfile::tempdir().unwrap();
        let day = dir.path().join("2021/07/20");
        std::fs::create_dir_all(&day).unwrap();
        for name in [
            ".0800.md.Ab3xYz.tmp",
            "0800.md",
            ".notes.tmp",
            ".0800.md.tmp",
            "x.tmp",
        ] {
            std::fs::write(day.join(name), b"x").unwrap();
        }
        std::thread::sleep(std::time::Duration::from_millis(20));
        let cutoff = std::time::SystemTime::now();
        std::thread::sleep(std::time::Duration::from_millis(20));
        std::fs::write(day.join(".0900.md.Qw12er.tmp"), b"in progress").unwrap();
        let removed = remove_stale_temp_files(dir.path(), cutoff);
        assert_eq!(removed, vec![day.join(".0800.md.Ab3xYz.tmp")]);
        let mut left: Vec<String> = std::fs::read_dir(&day)
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .collect();
        left.sort();
        assert_eq!(
            left,
            [
                ".0800.md.tmp",
                ".0900.md.Qw12er.tmp",
                ".notes.tmp",
                "0800.md",
                "x.tmp"
            ]
        );
        // write_atomic's own temp names are what is matched.
        assert!(is_snapshot_temp_name(".2300.md.a1B2c3.tmp"));
        assert!(!is_snapshot_temp_name(".fetch-state.json.a1B2c3.tmp"));
    }

    #[test]
    fn second_lock_waits_for_the_first() {
        let dir = tempfile::tempdir().unwrap();
        let first = SiteLock::acquire(dir.path(), |_| panic!("nobody holds it")).unwrap();
        let root = dir.path().to_path_buf();
        let (tx, rx) = std::sync::mpsc::channel();
        let t = std::thread::spawn(move || {
            let mut waited = false;
            let _second = SiteLock::acquire(&root, |_| waited = true).unwrap();
            tx.send(waited).unwrap();
        });
        std::thread::sleep(std::time::Duration::from_millis(200));
        assert!(rx.try_recv().is_err(), "second lock taken while first held");
        drop(first);
        assert!(rx.recv_timeout(std::time::Duration::from_secs(5)).unwrap());
        t.join().unwrap();
    }
}
