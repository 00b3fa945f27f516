mod harness;

mod envelope;
mod generated;
mod invocation;
mod list_dir;
mod read_file;
mod state;
mod trust;
mod workspace_boundary;
