//! Start-up of the `fake-agy` binary on Linux with glibc: most of a canned envelope's
//! time is spent before `main`, so two link choices halve it (docs/fake-agy.md,
//! "Benchmark", has the measurements):
//!
//! - `-no-pie`: a position-independent executable (the target's default) starts with
//!   the dynamic loader applying one relative relocation per address in its data, about
//!   17,600 for this binary. Linked position-dependent, those are fixed at link time.
//!   The cost is address-space layout randomisation of the binary's own code, which a
//!   test double running in a sandbox does not need.
//! - gcc's static unwinder (`libgcc_eh.a`) before the shared `libgcc_s`: std needs an
//!   unwinder, and loading `libgcc_s.so.1` costs a library mapping and its constructor's
//!   CPU-feature probes (`cpuid`, which traps in a virtual machine). Linked statically,
//!   `--as-needed` drops the shared one. Used only when the host's C compiler names the
//!   archive and links for the target: a C compiler set for the target (`CC_<target>` or
//!   `TARGET_CC`, as cargo-zigbuild and maturin's `--zig` set for the packages' glibc 2.17
//!   floor) links against another glibc than the host's, and the host gcc's archive needs
//!   the host's (gcc 12's calls `_dl_find_object`, glibc 2.35).
//!
//! Other targets keep their defaults.
//!
//! The built-in calibrations (`calibrations/`) are compiled in (`src/model/builtin.rs`);
//! it rebuilds when they change.

use std::path::PathBuf;
use std::process::Command;

fn main() {
    println!("cargo:rerun-if-changed=build.rs");
    println!("cargo:rerun-if-changed=calibrations");
    println!("cargo:rerun-if-env-changed=CC");
    let os = std::env::var("CARGO_CFG_TARGET_OS").unwrap_or_default();
    let env = std::env::var("CARGO_CFG_TARGET_ENV").unwrap_or_default();
    if os != "linux" || env != "gnu" {
        return;
    }
    println!("cargo:rustc-link-arg-bin=fake-agy=-no-pie");
    if target_compiler_is_set() {
        return;
    }
    if let Some(dir) = static_unwinder_dir() {
        println!("cargo:rustc-link-search=native={}", dir.display());
        println!("cargo:rustc-link-lib=static:-bundle,+verbatim=libgcc_eh.a");
    }
}

/// True when a C compiler is set for the target alone (the cc crate's `CC_<target>`, with
/// dashes or underscores, or `TARGET_CC`).
fn target_compiler_is_set() -> bool {
    let target = std::env::var("TARGET").unwrap_or_default();
    let names = [
        format!("CC_{target}"),
        format!("CC_{}", target.replace('-', "_")),
        "TARGET_CC".to_owned(),
    ];
    for name in &names {
        println!("cargo:rerun-if-env-changed={name}");
    }
    names
        .iter()
        .any(|name| std::env::var_os(name).is_some_and(|v| !v.is_empty()))
}

/// The folder of `libgcc_eh.a` as the C compiler reports it, when it exists.
fn static_unwinder_dir() -> Option<PathBuf> {
    let cc = std::env::var("CC").unwrap_or_else(|_| "cc".to_owned());
    let out = Command::new(cc)
        .arg("-print-file-name=libgcc_eh.a")
        .output()
        .ok()?;
    let path = PathBuf::from(String::from_utf8(out.stdout).ok()?.trim());
    // A compiler that does not know the file prints its bare name back.
    if out.status.success() && path.is_absolute() && path.is_file() {
        path.parent().map(PathBuf::from)
    } else {
        None
    }
}
