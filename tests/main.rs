mod harness;

mod invocation;
mod list_dir;
mod read_file;
mod workspace_boundary;
