mod harness;

mod generated;
mod invocation;
mod list_dir;
mod read_file;
mod workspace_boundary;
