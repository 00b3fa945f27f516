fn main() {
    std::process::exit(codesmith::run(std::env::args_os().collect()));
}
