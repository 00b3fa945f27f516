use std::io::Read;
use std::os::unix::fs::symlink;

use super::*;

thread_local! {
    /// Makes `openat2` fail as on a kernel without it, so the walk does everything.
    pub static NO_OPENAT2: std::cell::Cell<bool> = const { std::cell::Cell::new(false) };
}

/// Runs `test` once with `openat2` and once with the walk alone.
fn both_ways(test: fn()) {
    test();
    NO_OPENAT2.with(|c| c.set(true));
    test();
    NO_OPENAT2.with(|c| c.set(false));
}

/// A workspace `ws/` and a directory `outside/` next to it, in a fresh temp dir.
struct Tree {
    _dir: tempfile::TempDir,
    ws: PathBuf,
    outside: PathBuf,
}

fn tree() -> Tree {
    let dir = tempfile::tempdir().unwrap();
    let base = dir.path().canonicalize().unwrap();
    let (ws, outside) = (base.join("ws"), base.join("outside"));
    std::fs::create_dir_all(ws.join("sub")).unwrap();
    std::fs::create_dir(&outside).unwrap();
    std::fs::write(ws.join("a.txt"), "inside\n").unwrap();
    std::fs::write(outside.join("secret.txt"), "secret\n").unwrap();
    Tree {
        _dir: dir,
        ws,
        outside,
    }
}

impl Tree {
    fn roots(&self) -> Roots {
        Roots::new(vec![self.ws.clone()])
    }

    fn read(&self, rel: &str) -> Result<String, Refusal> {
        let mut file = self.roots().open(&self.ws.join(rel), libc::O_RDONLY)?;
        let mut text = String::new();
        file.read_to_string(&mut text).unwrap();
        Ok(text)
    }
}

fn escapes(result: Result<impl std::fmt::Debug, Refusal>) -> PathBuf {
    match result {
        Err(Refusal::Escapes(to)) => to,
        other => panic!("expected an escape, got {other:?}"),
    }
}

#[test]
fn a_relative_link_that_stays_inside_is_followed() {
    both_ways(a_relative_link_that_stays_inside_is_followed_case);
}

fn a_relative_link_that_stays_inside_is_followed_case() {
    let t = tree();
    symlink("a.txt", t.ws.join("link.txt")).unwrap();
    symlink("../a.txt", t.ws.join("sub/up.txt")).unwrap();
    symlink("sub", t.ws.join("dirlink")).unwrap();
    assert_eq!(t.read("link.txt").unwrap(), "inside\n");
    assert_eq!(t.read("sub/up.txt").unwrap(), "inside\n");
    std::fs::write(t.ws.join("sub/b.txt"), "b\n").unwrap();
    assert_eq!(t.read("dirlink/b.txt").unwrap(), "b\n");
}

#[test]
fn an_absolute_link_that_stays_inside_is_followed() {
    both_ways(an_absolute_link_that_stays_inside_is_followed_case);
}

fn an_absolute_link_that_stays_inside_is_followed_case() {
    // RESOLVE_BENEATH refuses every absolute symlink; the walk reads it and checks it.
    let t = tree();
    symlink(t.ws.join("a.txt"), t.ws.join("abs.txt")).unwrap();
    symlink(t.ws.join("sub"), t.ws.join("absdir")).unwrap();
    assert_eq!(t.read("abs.txt").unwrap(), "inside\n");
    let slot = t.roots().slot(&t.ws.join("absdir/new.txt"), false).unwrap();
    slot.dir.create_new(&slot.name, 0o644).unwrap();
    assert!(t.ws.join("sub/new.txt").is_file());
}

#[test]
fn links_that_lead_out_are_refused() {
    both_ways(links_that_lead_out_are_refused_case);
}

fn links_that_lead_out_are_refused_case() {
    let t = tree();
    symlink(t.outside.join("secret.txt"), t.ws.join("abs-out.txt")).unwrap();
    symlink("../outside/secret.txt", t.ws.join("rel-out.txt")).unwrap();
    symlink("../../outside", t.ws.join("sub/out")).unwrap();
    assert_eq!(escapes(t.read("abs-out.txt")), t.outside.join("secret.txt"));
    assert_eq!(escapes(t.read("rel-out.txt")), t.outside.join("secret.txt"));
    assert_eq!(
        escapes(t.read("sub/out/secret.txt")),
        t.outside.join("secret.txt")
    );
}

#[test]
fn dotdot_through_a_link_folds_from_where_the_link_leads() {
    both_ways(dotdot_through_a_link_folds_from_where_the_link_leads_case);
}

fn dotdot_through_a_link_folds_from_where_the_link_leads_case() {
    // `sub/deep -> ../sub2/x`: `deep/..` is `sub2`, not `sub`.
    let t = tree();
    std::fs::create_dir_all(t.ws.join("sub2/x")).unwrap();
    std::fs::write(t.ws.join("sub2/here.txt"), "sub2\n").unwrap();
    symlink("../sub2/x", t.ws.join("sub/deep")).unwrap();
    symlink("deep/../here.txt", t.ws.join("sub/via.txt")).unwrap();
    assert_eq!(t.read("sub/via.txt").unwrap(), "sub2\n");
    // And `..` that climbs above the root through a link, then back in, stays usable.
    let name = t.ws.file_name().unwrap().to_str().unwrap().to_string();
    symlink(format!("../../{name}/a.txt"), t.ws.join("sub/round.txt")).unwrap();
    assert_eq!(t.read("sub/round.txt").unwrap(), "inside\n");
}

#[test]
fn a_link_loop_is_a_loop() {
    both_ways(a_link_loop_is_a_loop_case);
}

fn a_link_loop_is_a_loop_case() {
    let t = tree();
    symlink("b", t.ws.join("a")).unwrap();
    symlink("a", t.ws.join("b")).unwrap();
    assert!(matches!(t.read("a"), Err(Refusal::Loop)), "{:?}", t.read("a"));
    assert!(matches!(
        t.roots().slot(&t.ws.join("a/x.txt"), true),
        Err(Refusal::Loop)
    ));
}

#[test]
fn a_dangling_link_is_missing_inside_and_refused_outside() {
    both_ways(a_dangling_link_is_missing_inside_and_refused_outside_case);
}

fn a_dangling_link_is_missing_inside_and_refused_outside_case() {
    let t = tree();
    symlink("nowhere.txt", t.ws.join("dangling.txt")).unwrap();
    symlink(t.outside.join("nowhere"), t.ws.join("dangling-out")).unwrap();
    match t.read("dangling.txt") {
        Err(Refusal::Io(err)) => assert_eq!(err.kind(), io::ErrorKind::NotFound),
        other => panic!("{other:?}"),
    }
    // Creating beneath a dangling link that stays inside makes the directory it names.
    symlink("made", t.ws.join("dangling-dir")).unwrap();
    let slot = t.roots().slot(&t.ws.join("dangling-dir/new.txt"), true).unwrap();
    slot.dir.create_new(&slot.name, 0o644).unwrap();
    assert!(t.ws.join("made/new.txt").is_file());
    escapes(t.roots().slot(&t.ws.join("dangling-out/new.txt"), true));
    assert!(!t.outside.join("nowhere").exists());
}

#[test]
fn creating_beneath_a_link_out_is_refused_and_creates_nothing() {
    both_ways(creating_beneath_a_link_out_is_refused_and_creates_nothing_case);
}

fn creating_beneath_a_link_out_is_refused_and_creates_nothing_case() {
    let t = tree();
    symlink(&t.outside, t.ws.join("out")).unwrap();
    let to = escapes(t.roots().slot(&t.ws.join("out/new/deeper.txt"), true));
    assert_eq!(to, t.outside.join("new/deeper.txt"));
    assert!(!t.outside.join("new").exists());
    escapes(t.roots().slot(&t.ws.join("out/secret.txt"), false));
    escapes(t.roots().remove_file(&t.ws.join("out/secret.txt")));
    assert!(t.outside.join("secret.txt").exists());
}

#[test]
fn missing_parents_are_made_from_their_parent_descriptor() {
    both_ways(missing_parents_are_made_from_their_parent_descriptor_case);
}

fn missing_parents_are_made_from_their_parent_descriptor_case() {
    let t = tree();
    let slot = t.roots().slot(&t.ws.join("x/y/z.txt"), true).unwrap();
    assert_eq!(slot.name, "z.txt");
    assert!(t.ws.join("x/y").is_dir());
    match t.roots().slot(&t.ws.join("p/q.txt"), false) {
        Err(Refusal::Io(err)) => assert_eq!(err.kind(), io::ErrorKind::NotFound),
        other => panic!("{other:?}"),
    }
    // A file where a directory must be is missing too (`a.txt/x`), never written through.
    assert!(matches!(
        t.roots().slot(&t.ws.join("a.txt/x"), true),
        Err(Refusal::Io(_))
    ));
}

#[test]
fn a_link_into_a_trusted_root_is_followed_only_when_that_root_is_trusted() {
    both_ways(a_link_into_a_trusted_root_is_followed_only_when_that_root_is_trusted_case);
}

fn a_link_into_a_trusted_root_is_followed_only_when_that_root_is_trusted_case() {
    let t = tree();
    symlink(&t.outside, t.ws.join("shared")).unwrap();
    escapes(t.read("shared/secret.txt"));
    let trusting = Roots::new(vec![t.ws.clone(), t.outside.clone()]);
    let mut text = String::new();
    trusting
        .open(&t.ws.join("shared/secret.txt"), libc::O_RDONLY)
        .unwrap()
        .read_to_string(&mut text)
        .unwrap();
    assert_eq!(text, "secret\n");
    let slot = trusting.slot(&t.outside.join("new.txt"), false).unwrap();
    slot.dir.create_new(&slot.name, 0o644).unwrap();
    assert!(t.outside.join("new.txt").is_file());
}

#[test]
fn a_path_under_no_root_is_refused_without_a_lookup() {
    both_ways(a_path_under_no_root_is_refused_without_a_lookup_case);
}

fn a_path_under_no_root_is_refused_without_a_lookup_case() {
    let t = tree();
    escapes(t.roots().open(&t.outside.join("secret.txt"), libc::O_RDONLY));
    escapes(
        t.roots()
            .open(&t.ws.join("../outside/secret.txt"), libc::O_RDONLY),
    );
}

#[test]
fn the_root_itself_opens_as_a_directory_and_lists() {
    both_ways(the_root_itself_opens_as_a_directory_and_lists_case);
}

fn the_root_itself_opens_as_a_directory_and_lists_case() {
    let t = tree();
    let dir = t.roots().dir(&t.ws).unwrap();
    let mut names: Vec<_> = dir.entries().unwrap().into_iter().map(|(n, _)| n).collect();
    names.sort();
    assert_eq!(names, ["a.txt", "sub"]);
}

#[test]
fn a_reader_reads_inside_and_refuses_a_link_out_either_way() {
    both_ways(|| {
        let t = tree();
        symlink(&t.outside, t.ws.join("out")).unwrap();
        symlink(t.ws.join("sub"), t.ws.join("in")).unwrap();
        std::fs::write(t.ws.join("sub/b.txt"), "b\n").unwrap();
        let roots = t.roots();
        let reader = roots.reader();
        assert_eq!(reader.read(&t.ws.join("a.txt")).unwrap(), b"inside\n");
        // A link that stays inside is followed; one that leads out is refused.
        assert_eq!(reader.read(&t.ws.join("in/b.txt")).unwrap(), b"b\n");
        assert!(reader.read(&t.ws.join("out/secret.txt")).is_err());
        escapes(reader.open(&t.ws.join("out/secret.txt")));
        // `..` is resolved as the roots resolve it, never above the root.
        assert_eq!(reader.read(&t.ws.join("sub/../a.txt")).unwrap(), b"inside\n");
        // A name is held only by a parent reached beneath the root.
        assert!(reader.holds(&t.ws.join("sub/b.txt")));
        assert!(reader.holds(&t.ws.join("out")));
        assert!(!reader.holds(&t.ws.join("out/secret.txt")));
        assert!(!reader.holds(&t.ws.join("sub/missing.txt")));
    });
}
