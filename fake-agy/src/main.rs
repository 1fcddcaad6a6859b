//! The `fake-agy` binary (install it on a sandbox `PATH` as `agy`).

fn main() {
    eprintln!("fake-agy: not implemented yet");
    std::process::exit(70);
}
