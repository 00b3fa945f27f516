//! Link settings for the `codesmith` binary only (dependencies and tests are unaffected).
//!
//! codesmith runs as one short process per tool call, so start-up is a large share of a call.
//! As a position-independent executable the binary carries ~30,000 relative relocations that
//! the dynamic loader applies at every start, writing to (and so faulting in) every page that
//! holds a pointer. Linked as a fixed-address executable those are resolved at link time: a
//! `read` of a small file drops from ~1.06 M to ~0.67 M instructions and from ~266 to ~122 page
//! faults. The cost is that the executable's own image is not address-randomized (its shared
//! libraries, heap and stack still are); for a local tool of memory-safe code that runs one
//! call and exits, start-up wins.
//!
//! A statically linked build (`+crt-static`, see bench/README.md) already chooses its own
//! link mode (static-pie, or static fixed-address with `-C relocation-model=static`); adding
//! `-no-pie` to a static-pie link yields an executable that crashes at start, so it is left out.
fn main() {
    println!("cargo:rerun-if-changed=build.rs");
    let os = std::env::var("CARGO_CFG_TARGET_OS").unwrap_or_default();
    let features = std::env::var("CARGO_CFG_TARGET_FEATURE").unwrap_or_default();
    let crt_static = features.split(',').any(|f| f == "crt-static");
    if os == "linux" && !crt_static {
        println!("cargo:rustc-link-arg-bins=-no-pie");
    }
}
