//! The threads that read stdin and run read-only calls beside the main thread (see
//! `read_loop`: the reader runs a read-only call itself and hands the reading to one of these).
//! A thread is started only when every one started before is busy, and then kept, waiting for
//! the next job: starting a thread (its stack mapped, then unmapped when it ends) cost as much
//! as the rest of a small read_file call.
//!
//! Only the reader hands out jobs, and there is one reader at a time, so counting the idle
//! threads is enough: when the count is above zero, a thread is waiting on the channel (or
//! about to) and takes the job.

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::mpsc::{self, Receiver, Sender};
use std::sync::{Arc, Mutex};

pub(super) type Job = Box<dyn FnOnce() + Send>;

pub(super) struct Workers {
    jobs: Sender<Job>,
    waiting: Arc<Mutex<Receiver<Job>>>,
    idle: Arc<AtomicUsize>,
}

impl Workers {
    pub(super) fn new() -> Workers {
        let (jobs, waiting) = mpsc::channel();
        Workers {
            jobs,
            waiting: Arc::new(Mutex::new(waiting)),
            idle: Arc::new(AtomicUsize::new(0)),
        }
    }

    /// Runs `job` on an idle thread, or on a new one; `false` when no thread could be started.
    /// A job must not panic (the calls catch their own panics): the thread would end with it.
    pub(super) fn run(&self, job: Job) -> bool {
        if self.idle.load(Ordering::SeqCst) > 0 {
            self.idle.fetch_sub(1, Ordering::SeqCst);
            return match self.jobs.send(job) {
                Ok(()) => true,
                Err(mpsc::SendError(job)) => self.start(job),
            };
        }
        self.start(job)
    }

    /// A new thread that runs `first`, then every job it is handed while it waits.
    fn start(&self, first: Job) -> bool {
        let (waiting, idle) = (self.waiting.clone(), self.idle.clone());
        let worker = move || {
            first();
            loop {
                idle.fetch_add(1, Ordering::SeqCst);
                let next = match waiting.lock() {
                    Ok(jobs) => jobs.recv(),
                    Err(poisoned) => poisoned.into_inner().recv(),
                };
                match next {
                    Ok(job) => job(),
                    Err(_) => return,
                }
            }
        };
        std::thread::Builder::new()
            .name("mcp-read".into())
            .spawn(worker)
            .is_ok()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn idle_threads_are_reused_and_busy_ones_are_not_waited_for() {
        let workers = Workers::new();
        let (done, finished) = mpsc::channel();
        let names = |done: Sender<String>| -> Job {
            Box::new(move || {
                let _ = done.send(std::thread::current().name().unwrap_or_default().to_string());
            })
        };
        assert!(workers.run(names(done.clone())));
        assert_eq!(finished.recv().ok().as_deref(), Some("mcp-read"));
        // Wait until the thread counts itself idle, then it takes the next job.
        while workers.idle.load(Ordering::SeqCst) == 0 {
            std::thread::yield_now();
        }
        let (block, blocked) = mpsc::channel::<()>();
        assert!(workers.run(Box::new(move || {
            let _ = blocked.recv();
        })));
        assert_eq!(workers.idle.load(Ordering::SeqCst), 0);
        // The only thread is busy: a second call gets a thread of its own and is not held up.
        assert!(workers.run(names(done)));
        assert!(finished.recv_timeout(std::time::Duration::from_secs(10)).is_ok());
        drop(block);
    }
}
