//! The `fake-agy` binary (install it on a sandbox `PATH` as `agy`).

fn main() {
    fake_agy::main_with(std::env::args().collect())
}
