//! The catalogue and the spikes are compiled into agy-harness (`src/embedded.rs`);
//! rebuild it when they change.

fn main() {
    println!("cargo:rerun-if-changed=../scenarios");
    println!("cargo:rerun-if-changed=../spikes");
    println!("cargo:rerun-if-changed=build.rs");
}
