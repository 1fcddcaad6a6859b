//! How the binary is linked on Linux with glibc (build.rs): position-dependent, and
//! without the shared `libgcc_s`, the two choices that halve its start-up
//! (docs/fake-agy.md, "Benchmark"). Read from the ELF file itself.

#![cfg(all(target_os = "linux", target_env = "gnu"))]

use crate::support::bin;

/// `e_type` of an ELF file: 2 for a position-dependent executable, 3 for a shared
/// object (which is what a position-independent executable is).
fn elf_type(bytes: &[u8]) -> u16 {
    assert_eq!(&bytes[..4], b"\x7fELF", "not an ELF file");
    u16::from_le_bytes([bytes[16], bytes[17]])
}

#[test]
fn the_binary_is_position_dependent_and_needs_no_shared_libgcc() {
    let bytes = std::fs::read(bin()).expect("read the fake-agy binary");
    assert_eq!(elf_type(&bytes), 2, "fake-agy is not linked -no-pie");
    let ldd = std::process::Command::new("ldd")
        .arg(bin())
        .output()
        .expect("run ldd");
    let needed = String::from_utf8_lossy(&ldd.stdout);
    assert!(ldd.status.success(), "ldd failed: {needed}");
    assert!(needed.contains("libc.so"), "ldd lists no libc: {needed}");
    assert!(
        !needed.contains("libgcc_s"),
        "fake-agy loads the shared unwinder: {needed}"
    );
}
