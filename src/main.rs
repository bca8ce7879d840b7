//! The `roofline` command. All logic lives in the library; this only maps errors to exit codes.

fn main() {
    let code = match roofline_lab::cli::run() {
        Ok(()) => 0,
        Err(e) => {
            // A hung kernel's process cannot end normally: this writes the error and leaves.
            roofline_lab::error::exit_now_if_hung(&e);
            eprintln!("error: {e:#}");
            roofline_lab::error::exit_code_of(&e)
        }
    };
    std::process::exit(code);
}
