//! The daemons' sockets a command cannot reach: the directories where they live are hidden
//! behind an empty read-only tmpfs in the command's mount namespace.
//!
//! A unix socket is reached by its path, and a read-only mount does not stop `connect`: the
//! docker socket is root on the host, ssh-agent signs as the user, D-Bus starts services. So
//! `/run` (`/var/run`), the user's runtime directory, X11's socket directory and the
//! ssh-agent's are emptied, unless one of them holds a writable root (the workspace under
//! `/run/user/…` stays visible). `[shell] sockets` brings single paths back, and a resolver
//! configuration that `/etc/resolv.conf` links into `/run` is always brought back, or name
//! lookups would fail. Abstract sockets (no path) are Landlock's to scope.

use std::path::{Path, PathBuf};

/// The directories daemons' sockets live in, before the environment's own.
const SOCKET_DIRS: [&str; 3] = ["/run", "/var/run", "/tmp/.X11-unix"];

/// Files under a hidden directory that commands need all the same.
const ALWAYS_KEPT: [&str; 2] = ["/etc/resolv.conf", "/etc/hosts"];

/// The directories to hide from a command whose writable roots are `writable`.
pub(super) fn masked(writable: &[PathBuf]) -> Vec<PathBuf> {
    let from_env = ["XDG_RUNTIME_DIR", "SSH_AUTH_SOCK"]
        .into_iter()
        .filter_map(|name| std::env::var_os(name).map(PathBuf::from))
        .map(|path| match path.is_dir() {
            true => path,
            false => path.parent().map(Path::to_path_buf).unwrap_or(path),
        });
    let mut dirs: Vec<PathBuf> = SOCKET_DIRS
        .iter()
        .map(PathBuf::from)
        .chain(from_env)
        .filter_map(|dir| dir.canonicalize().ok())
        .filter(|dir| dir.is_dir() && dir.parent().is_some())
        .filter(|dir| {
            !writable
                .iter()
                .any(|root| root.starts_with(dir) || dir.starts_with(root))
        })
        .collect();
    dirs.sort_by_key(|dir| dir.components().count());
    let mut outermost: Vec<PathBuf> = Vec::new();
    for dir in dirs {
        if !outermost.iter().any(|outer| dir.starts_with(outer)) {
            outermost.push(dir);
        }
    }
    outermost
}

/// The paths in `masked` directories that stay reachable: the granted sockets and the files
/// `/etc` links into them.
pub(super) fn kept(granted: &[PathBuf], masked: &[PathBuf]) -> Vec<PathBuf> {
    let always = ALWAYS_KEPT
        .iter()
        .filter_map(|path| Path::new(path).canonicalize().ok());
    let mut kept: Vec<PathBuf> = granted
        .iter()
        .cloned()
        .chain(always)
        .filter(|path| masked.iter().any(|dir| path.starts_with(dir) && path != dir))
        .collect();
    kept.sort();
    kept.dedup();
    kept
}

/// The hidden directory `path` (absolute, as a command named it) lies in, if any.
pub fn hidden_by<'a>(path: &Path, masked: &'a [PathBuf]) -> Option<&'a PathBuf> {
    masked.iter().find(|dir| path.starts_with(dir))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_directory_holding_a_writable_root_is_not_hidden() {
        let run = Path::new("/run")
            .canonicalize()
            .unwrap_or_else(|_| PathBuf::from("/run"));
        if !run.is_dir() {
            return;
        }
        let inside = run.join("user/1000/ws");
        assert!(!masked(&[inside]).contains(&run));
        assert!(masked(&[PathBuf::from("/home/someone/ws")]).contains(&run));
    }

    #[test]
    fn only_paths_inside_a_hidden_directory_are_kept() {
        let masked = vec![PathBuf::from("/run")];
        let granted = vec![
            PathBuf::from("/run/docker.sock"),
            PathBuf::from("/home/u/app.sock"),
            PathBuf::from("/run"),
        ];
        let kept = kept(&granted, &masked);
        assert!(kept.contains(&PathBuf::from("/run/docker.sock")));
        assert!(!kept.contains(&PathBuf::from("/home/u/app.sock")));
        assert!(!kept.contains(&PathBuf::from("/run")));
    }
}
