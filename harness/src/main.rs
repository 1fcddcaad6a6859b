//! The `agy-harness` binary.

fn main() {
    eprintln!("agy-harness: not implemented yet");
    std::process::exit(3);
}
