//! The `guarded` command: see `guarded --help`.

fn main() {
    // On a thread of our own, for its stack (see `cli::STACK_SIZE`).
    let code = std::thread::Builder::new()
        .name("guarded".into())
        .stack_size(guarded::cli::STACK_SIZE)
        .spawn(guarded::cli::main)
        .map(|t| t.join().unwrap_or(101))
        .unwrap_or_else(|_| guarded::cli::main());
    std::process::exit(code);
}
