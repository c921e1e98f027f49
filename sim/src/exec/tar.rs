//! `tar cf - PATH…` in the simulated container, for `kubectl cp POD:PATH LOCAL` (kubectl runs
//! exactly that and reads the archive from stdout, kubectl/pkg/cmd/cp/cp.go `copyFromPod`):
//! a POSIX ustar archive of the files under each path, named without the leading `/` as GNU
//! tar names them (and says so on stderr), a relative path named as given (`tar cf - -C /tmp
//! x`, what `@kubernetes/client-node`'s `cpFromPod` runs, archives `x`). Extracting into the
//! container (`kubectl cp LOCAL POD:PATH`, `tar xmf -`) is not simulated.

use std::collections::BTreeMap;

/// One ustar header block for `name` (a file of `size` bytes, or a directory).
fn header(name: &str, size: usize, dir: bool, mtime: i64) -> [u8; 512] {
    let mut h = [0u8; 512];
    let name = name.as_bytes();
    let (prefix, rest) = if name.len() > 100 {
        // Split at a `/` so that the name fits in prefix (155) + name (100).
        let cut = name[..name.len().min(155)].iter().rposition(|b| *b == b'/').unwrap_or(0);
        (&name[..cut], &name[(cut + 1).min(name.len())..])
    } else {
        (&name[..0], name)
    };
    h[..rest.len().min(100)].copy_from_slice(&rest[..rest.len().min(100)]);
    let octal = |h: &mut [u8; 512], at: usize, width: usize, value: u64| {
        let text = format!("{value:0w$o}", w = width - 1);
        h[at..at + width - 1].copy_from_slice(&text.as_bytes()[text.len() - (width - 1)..]);
    };
    octal(&mut h, 100, 8, if dir { 0o755 } else { 0o644 });
    octal(&mut h, 108, 8, 0);
    octal(&mut h, 116, 8, 0);
    octal(&mut h, 124, 12, if dir { 0 } else { size as u64 });
    octal(&mut h, 136, 12, mtime.max(0) as u64);
    h[156] = if dir { b'5' } else { b'0' };
    h[257..263].copy_from_slice(b"ustar\0");
    h[263..265].copy_from_slice(b"00");
    h[265..269].copy_from_slice(b"root");
    h[297..301].copy_from_slice(b"root");
    h[345..345 + prefix.len().min(155)].copy_from_slice(&prefix[..prefix.len().min(155)]);
    h[148..156].copy_from_slice(b"        ");
    let sum: u32 = h.iter().map(|b| u32::from(*b)).sum();
    let text = format!("{sum:06o}\0 ");
    h[148..156].copy_from_slice(text.as_bytes());
    h
}

/// A path to archive: where it is (absolute) and the name its members take (the path as given,
/// relative to the folder tar runs in or `-C` names, without a leading `/`).
pub struct Member {
    pub path: String,
    pub name: String,
    /// As given on the command line.
    pub given: String,
}

/// The archive of `members` from `files`: each a file, or a folder whose files under it go in
/// with their folders; and GNU tar's words for each path that is neither.
pub fn create(files: &BTreeMap<String, Vec<u8>>, members: &[Member], mtime: i64) -> (Vec<u8>, Vec<String>) {
    let mut out = Vec::new();
    let mut errors = Vec::new();
    for Member { path, name, .. } in members {
        let root = path.trim_end_matches('/');
        let under: Vec<(&String, &Vec<u8>)> =
            files.iter().filter(|(p, _)| *p == root || p.starts_with(&format!("{root}/")) || root.is_empty()).collect();
        if under.is_empty() {
            errors.push(format!("tar: {name}: Cannot stat: No such file or directory"));
            continue;
        }
        let mut dirs_written = std::collections::BTreeSet::new();
        let shown = name.trim_end_matches('/');
        for (p, content) in under {
            // The member's name: the name asked for, and the file's path below it.
            let below = p.strip_prefix(root).unwrap_or(p).trim_start_matches('/');
            let relative = match (shown.is_empty(), below.is_empty()) {
                (_, true) => shown.to_string(),
                (true, false) => below.to_string(),
                (false, false) => format!("{shown}/{below}"),
            };
            let relative = relative.as_str();
            // The folders from the asked path down to the file, each once.
            let parts: Vec<&str> = relative.split('/').collect();
            let root_depth = shown.split('/').filter(|s| !s.is_empty()).count();
            for depth in root_depth.max(1)..parts.len() {
                let dir = format!("{}/", parts[..depth].join("/"));
                if dirs_written.insert(dir.clone()) {
                    out.extend_from_slice(&header(&dir, 0, true, mtime));
                }
            }
            out.extend_from_slice(&header(relative, content.len(), false, mtime));
            out.extend_from_slice(content);
            out.resize(out.len().div_ceil(512) * 512, 0);
        }
    }
    out.resize(out.len() + 1024, 0);
    (out, errors)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn files() -> BTreeMap<String, Vec<u8>> {
        BTreeMap::from([
            ("/etc/hostname".to_string(), b"web-1\n".to_vec()),
            ("/etc/config/app.conf".to_string(), b"mode=demo\n".to_vec()),
        ])
    }

    /// Reads back (name, typeflag, content) the way a tar reader does.
    fn entries(archive: &[u8]) -> Vec<(String, u8, Vec<u8>)> {
        let mut out = Vec::new();
        let mut at = 0;
        while at + 512 <= archive.len() && archive[at] != 0 {
            let h = &archive[at..at + 512];
            let sum: u32 =
                h.iter().enumerate().map(|(i, b)| if (148..156).contains(&i) { 32 } else { u32::from(*b) }).sum();
            let stored = u32::from_str_radix(std::str::from_utf8(&h[148..154]).expect("octal"), 8).expect("a checksum");
            assert_eq!(sum, stored, "header checksum");
            let name = String::from_utf8_lossy(&h[..100]).trim_end_matches('\0').to_string();
            let size = usize::from_str_radix(std::str::from_utf8(&h[124..135]).expect("octal"), 8).expect("a size");
            out.push((name, h[156], archive[at + 512..at + 512 + size].to_vec()));
            at += 512 + size.div_ceil(512) * 512;
        }
        out
    }

    fn member(path: &str, name: &str) -> Member {
        Member { path: path.into(), name: name.into(), given: name.into() }
    }

    #[test]
    fn a_file_and_a_folder_archive_without_the_leading_slash() {
        let (archive, errors) = create(&files(), &[member("/etc/hostname", "etc/hostname")], 0);
        assert!(errors.is_empty());
        assert_eq!(archive.len() % 512, 0);
        assert_eq!(entries(&archive), [("etc/hostname".to_string(), b'0', b"web-1\n".to_vec())]);
        let (archive, _) = create(&files(), &[member("/etc/config", "etc/config")], 0);
        assert_eq!(
            entries(&archive),
            [
                ("etc/config/".to_string(), b'5', Vec::new()),
                ("etc/config/app.conf".to_string(), b'0', b"mode=demo\n".to_vec())
            ]
        );
        let (_, errors) = create(&files(), &[member("/nope", "nope")], 0);
        assert_eq!(errors, ["tar: nope: Cannot stat: No such file or directory"]);
    }

    #[test]
    fn a_path_given_relative_to_a_folder_keeps_its_relative_name() {
        // `tar cf - -C /etc config` (client-node's cpFromPod): members named from `config`.
        let (archive, _) = create(&files(), &[member("/etc/config", "config")], 0);
        assert_eq!(
            entries(&archive),
            [("config/".to_string(), b'5', Vec::new()), ("config/app.conf".to_string(), b'0', b"mode=demo\n".to_vec())]
        );
        let (archive, _) = create(&files(), &[member("/etc/hostname", "hostname")], 0);
        assert_eq!(entries(&archive), [("hostname".to_string(), b'0', b"web-1\n".to_vec())]);
    }
}
