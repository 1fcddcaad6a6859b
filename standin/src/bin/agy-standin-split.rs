//! `agy-standin-split`: splits one agy version's captures into the ones `agy-standin`
//! holds (their traces copied into `--held`) and the ones held back; prints each capture
//! as `held|back<TAB>id<TAB>kind<TAB>why`.

use agy_protocol::capture::load_corpus;
use agy_standin::{split_version, write_split, Side};
use clap::Parser;
use std::path::PathBuf;

/// Split one agy version's captures between the stand-in and a held-back set.
#[derive(Debug, Parser)]
#[command(name = "agy-standin-split")]
struct Cli {
    /// The corpus folder holding corpus.toml and the `<id>.jsonl` traces.
    #[arg(long, value_name = "DIR")]
    corpus: PathBuf,
    /// The agy version whose captures are split (`1.3.1`).
    #[arg(long = "version", value_name = "V")]
    agy_version: String,
    /// The folder the held captures' traces are copied into (the stand-in's folder).
    #[arg(long, value_name = "DIR")]
    held: PathBuf,
}

fn main() {
    let cli = Cli::parse();
    let corpus = match load_corpus(&cli.corpus) {
        Ok(c) => c,
        Err(d) => {
            eprint!("{d}");
            std::process::exit(2);
        }
    };
    let split = split_version(&corpus, &cli.agy_version);
    if split.ids(Side::Held).is_empty() {
        eprintln!(
            "agy-standin-split: agy {} has no capture the stand-in can serve\nhelp: pick a version with captures whose argv and exit are known",
            cli.agy_version
        );
        std::process::exit(2);
    }
    if let Err(e) = write_split(&cli.corpus, &split, &cli.held) {
        eprintln!("agy-standin-split: {e}");
        std::process::exit(3);
    }
    for (id, kind, side, why) in &split.captures {
        let side = if *side == Side::Held { "held" } else { "back" };
        println!("{side}\t{id}\t{kind}\t{why}", kind = kind.as_str());
    }
}
