//! The `guarded` command: see `guarded --help`.
fn main() {
    std::process::exit(guarded::cli::main());
}
