//! The `fake-agy` binary (install it on a sandbox `PATH` as `agy`).

fn main() {
    fake_agy::main_with_os(std::env::args_os().collect())
}
