/*
 * socklnd scheduler threads: the large writes and payload reads of
 * established connections done off the loop thread (docs/design-notes.md,
 * "Parallel I/O").
 *
 * The loop thread keeps everything socklnd owns: queues, txs, the choice
 * of connection, closes, receives and every upcall. What moves is the
 * system call and its copies, which is where a CPU-bound rail spends its
 * time: when a connection has SOCK_JOB_MIN_BYTES or more to write, there
 * are threads (opts.nscheds) and other connections are busy too
 * (sock_sched_wanted()), the loop thread fills the connection's
 * job with the iovec it would have written, hands it over and goes on
 * with other connections. Any thread takes any job from one FIFO, writes
 * until the iovec is done, the socket is full (EAGAIN) or a write fails,
 * and puts the job on the done list; the loop thread, woken through an
 * eventfd, accounts the bytes as if it had written them itself
 * (sock_conn_job_done()) and, after EAGAIN, waits for EPOLLOUT as after
 * its own writes. A thread never waits for room in a socket: a peer that
 * stops reading holds no thread, and the other connections' jobs never
 * queue behind it. A job's bytes count as written when it is back; a
 * look at TCP's progress (SIOCOUTQ) meanwhile sees less acknowledged
 * than there is, never more.
 *
 * Reads are the same in the other direction: once the node has said
 * where a payload of SOCK_JOB_MIN_BYTES or more goes (parse), the loop
 * thread hands the read of it (at most SOCK_JOB_MAX_BYTES, never past
 * the payload) to a thread, stops watching EPOLLIN and goes on; the
 * thread reads until the iovec is full, the socket is empty (EAGAIN),
 * the peer closed or a read failed, and the loop thread accounts the
 * bytes (sock_conn_rjob_done()). Headers, checksums and every upcall
 * stay on the loop thread. A connection has at most one job each way.
 *
 * Ownership: a job's inputs are written by the loop thread before it is
 * queued and its results by the thread that ran it before it is put on
 * the done list, both under the one mutex, so each side sees the other's
 * writes. While a job is out (conn->is_job_out) the memory it points at
 * (the head txs' headers and payload fragments) is not given back: the
 * loop thread writes nothing to that connection, completes none of the
 * queued txs the job covers and closes nothing before the job is back; a
 * close takes it back first (sock_sched_wait(): a queued job unstarted, a
 * running one waited for). While a read job is out, the loop thread
 * reads nothing from that connection and neither ends its receive
 * (rx_done, rx_abort) nor closes it before the job is back: the node's
 * iov it reads into stays the node's promise until then.
 *
 * Why it cannot deadlock: the threads wait only for work, never for the
 * loop thread or for a socket; a running job is non-blocking writes over
 * a bounded iovec, so the loop thread's wait for one is short; the mutex
 * is held only to move a job between lists (and for the eventfd write,
 * which never blocks), never across a call out.
 */
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <sys/socket.h>
#include <unistd.h>

#include "lnd/socklnd_int.h"

enum sock_job_state {
	SOCK_JOB_QUEUED, /* on sched->todo */
	SOCK_JOB_RUNNING,
	SOCK_JOB_DONE, /* on sched->done */
};

struct sock_job {
	struct ul_list link; /* on sched->todo or sched->done */
	struct sock_conn *conn;
	enum sock_job_state state; /* under sched->lock */
	bool is_read;		   /* recvmsg into iov, else sendmsg */
	/* Inputs, the loop thread's until queued. */
	int fd;
	int cnt;
	struct iovec iov[SOCK_IOV_MAX];
	/* Results, the running thread's until done. */
	uint64_t nob; /* bytes written or read */
	/*
	 * 0 (the iovec is done), -EAGAIN (the socket is full, or empty),
	 * -ECONNRESET (a read found the end) or the call's -errno.
	 */
	int err;
};

struct sock_sched {
	pthread_mutex_t lock;
	pthread_cond_t todo_cond; /* a job queued, or stop */
	pthread_cond_t done_cond; /* a job done: a close may wait for it */
	struct ul_list todo;	  /* struct sock_job.link, FIFO */
	struct ul_list done;	  /* struct sock_job.link */
	bool is_stopping;
	bool is_held; /* sock_sched_hold(): no job is started */
	int efd;      /* written when done goes non-empty */
	struct ul_io io;
	struct ul_socklnd *s;
	/*
	 * The loop thread's count of the connections that moved bulk data
	 * (sock_sched_wanted()) in this window and the one before; the
	 * window's number plus one (0: none yet).
	 */
	uint64_t bulk_window;
	unsigned int bulk_now;
	unsigned int bulk_before;
	unsigned int nthreads; /* started */
	pthread_t threads[];
};

/* Write or read as much of the job's iovec as the socket allows now. */
static void job_run(struct sock_job *job)
{
	struct iovec *iov = job->iov;
	int cnt = job->cnt;

	job->nob = 0;
	job->err = 0;
	while (cnt > 0) {
		struct msghdr msg;
		ssize_t n;
		size_t left;

		memset(&msg, 0, sizeof(msg));
		msg.msg_iov = iov;
		msg.msg_iovlen = (size_t)cnt;
		if (job->is_read)
			n = recvmsg(job->fd, &msg, MSG_DONTWAIT);
		else
			n = sendmsg(job->fd, &msg, MSG_NOSIGNAL | MSG_DONTWAIT);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			job->err = errno == EWOULDBLOCK ? -EAGAIN : -errno;
			return;
		}
		if (n == 0 && job->is_read) {
			job->err = -ECONNRESET;
			return;
		}
		job->nob += (uint64_t)n;
		left = (size_t)n;
		while (cnt > 0 && left >= iov->iov_len) {
			left -= iov->iov_len;
			iov++;
			cnt--;
		}
		if (cnt > 0) {
			iov->iov_base = (char *)iov->iov_base + left;
			iov->iov_len -= left;
		}
	}
}

static void *sched_main(void *arg)
{
	struct sock_sched *sc = arg;
	uint64_t one = 1;

	pthread_mutex_lock(&sc->lock);
	for (;;) {
		struct sock_job *job;
		bool was_empty;

		while ((ul_list_empty(&sc->todo) || sc->is_held) &&
		       !sc->is_stopping)
			pthread_cond_wait(&sc->todo_cond, &sc->lock);
		if (ul_list_empty(&sc->todo))
			break;
		job = ul_list_first_entry(&sc->todo, struct sock_job, link);
		ul_list_del(&job->link);
		job->state = SOCK_JOB_RUNNING;
		pthread_mutex_unlock(&sc->lock);

		job_run(job);

		pthread_mutex_lock(&sc->lock);
		job->state = SOCK_JOB_DONE;
		was_empty = ul_list_empty(&sc->done);
		ul_list_add_tail(&sc->done, &job->link);
		pthread_cond_broadcast(&sc->done_cond);
		/* One wake-up for every job the loop thread finds there. */
		if (was_empty)
			(void)!write(sc->efd, &one, sizeof(one));
	}
	pthread_mutex_unlock(&sc->lock);
	return NULL;
}

/* Loop thread: the jobs that came back. */
static void on_done(struct ul_io *io, uint32_t events)
{
	struct sock_sched *sc = ul_container_of(io, struct sock_sched, io);
	struct ul_list todo;
	uint64_t count;

	(void)events;
	(void)!read(sc->efd, &count, sizeof(count));
	pthread_mutex_lock(&sc->lock);
	ul_list_take(&sc->done, &todo);
	pthread_mutex_unlock(&sc->lock);
	while (!ul_list_empty(&todo)) {
		struct sock_job *job =
			ul_list_first_entry(&todo, struct sock_job, link);

		ul_list_del(&job->link);
		if (job->is_read) {
			job->conn->is_rjob_out = false;
			sock_conn_rjob_done(job->conn, job->nob, job->err);
		} else {
			job->conn->is_job_out = false;
			sock_conn_job_done(job->conn, job->nob, job->err);
		}
	}
	sock_deliver(sc->s);
}

static void sched_free(struct sock_sched *sc)
{
	pthread_cond_destroy(&sc->done_cond);
	pthread_cond_destroy(&sc->todo_cond);
	pthread_mutex_destroy(&sc->lock);
	if (sc->efd >= 0)
		close(sc->efd);
	free(sc);
}

/* Tell the threads to go once the queue is empty, and join them. */
static void sched_join(struct sock_sched *sc)
{
	pthread_mutex_lock(&sc->lock);
	sc->is_stopping = true;
	pthread_cond_broadcast(&sc->todo_cond);
	pthread_mutex_unlock(&sc->lock);
	for (unsigned int i = 0; i < sc->nthreads; i++)
		pthread_join(sc->threads[i], NULL);
	sc->nthreads = 0;
}

int sock_sched_start(struct ul_socklnd *s)
{
	unsigned int n = s->opts.nscheds;
	struct sock_sched *sc;
	sigset_t all, old;
	int rc;

	if (s->sched || n == 0)
		return 0;
	sc = calloc(1, sizeof(*sc) + n * sizeof(sc->threads[0]));
	if (!sc)
		return -ENOMEM;
	sc->s = s;
	sc->efd = -1;
	ul_list_init(&sc->todo);
	ul_list_init(&sc->done);
	pthread_mutex_init(&sc->lock, NULL);
	pthread_cond_init(&sc->todo_cond, NULL);
	pthread_cond_init(&sc->done_cond, NULL);
	sc->efd = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
	if (sc->efd < 0) {
		rc = -errno;
		sched_free(sc);
		return rc;
	}
	rc = ul_io_start(s->loop, &sc->io, sc->efd, EPOLLIN, on_done);
	if (rc < 0) {
		sched_free(sc);
		return rc;
	}
	/* Signals stay with the application's threads. */
	sigfillset(&all);
	pthread_sigmask(SIG_BLOCK, &all, &old);
	for (; sc->nthreads < n; sc->nthreads++) {
		char name[16];

		rc = -pthread_create(&sc->threads[sc->nthreads], NULL,
				     sched_main, sc);
		if (rc < 0)
			break;
		/* As the kernel names its own (one CPT here): top -H shows. */
		snprintf(name, sizeof(name), "socknal_sd00_%02u",
			 sc->nthreads % 100);
		(void)pthread_setname_np(sc->threads[sc->nthreads], name);
	}
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	if (sc->nthreads < n) {
		sched_join(sc);
		ul_io_stop(&sc->io);
		sched_free(sc);
		return rc;
	}
	s->sched = sc;
	ul_log(s->opts.log, UL_D_INFO, "socklnd: %u scheduler thread(s)", n);
	return 0;
}

void sock_sched_stop(struct ul_socklnd *s)
{
	struct sock_sched *sc = s->sched;

	if (!sc)
		return;
	sched_join(sc);
	ul_io_stop(&sc->io);
	sched_free(sc);
	s->sched = NULL;
}

void sock_sched_hold(struct ul_socklnd *s, bool is_held)
{
	struct sock_sched *sc = s->sched;

	if (!sc)
		return;
	pthread_mutex_lock(&sc->lock);
	sc->is_held = is_held;
	pthread_cond_broadcast(&sc->todo_cond);
	pthread_mutex_unlock(&sc->lock);
}

bool sock_sched_wanted(struct sock_conn *conn)
{
	struct sock_sched *sc = conn->ni->s->sched;
	uint64_t window;

	if (!sc)
		return false;
	window = sock_now(conn->ni) / SOCK_BULK_WINDOW_NS + 1;
	if (window != sc->bulk_window) {
		sc->bulk_before = window == sc->bulk_window + 1 ? sc->bulk_now
								: 0;
		sc->bulk_now = 0;
		sc->bulk_window = window;
	}
	if (conn->bulk_window != window) {
		conn->bulk_window = window;
		sc->bulk_now++;
	}
	return sc->bulk_now >= conn->ni->s->opts.sched_min_conns ||
	       sc->bulk_before >= conn->ni->s->opts.sched_min_conns;
}

int sock_sched_post(struct sock_conn *conn, bool is_read,
		    const struct iovec *iov, int cnt)
{
	struct sock_sched *sc = conn->ni->s->sched;
	struct sock_job **slot = is_read ? &conn->rjob : &conn->job;
	struct sock_job *job = *slot;

	if (!job) {
		job = calloc(1, sizeof(*job));
		if (!job)
			return -ENOMEM;
		job->conn = conn;
		job->is_read = is_read;
		ul_list_init(&job->link);
		*slot = job;
	}
	job->fd = conn->fd;
	job->cnt = cnt;
	memcpy(job->iov, iov, (size_t)cnt * sizeof(iov[0]));
	if (is_read)
		conn->is_rjob_out = true;
	else
		conn->is_job_out = true;
	pthread_mutex_lock(&sc->lock);
	job->state = SOCK_JOB_QUEUED;
	ul_list_add_tail(&sc->todo, &job->link);
	/* Every time: a second job must not wait for the first's thread. */
	pthread_cond_signal(&sc->todo_cond);
	pthread_mutex_unlock(&sc->lock);
	return 0;
}

uint64_t sock_sched_wait(struct sock_conn *conn, bool is_read, int *err)
{
	struct sock_sched *sc = conn->ni->s->sched;
	struct sock_job *job = is_read ? conn->rjob : conn->job;
	bool *is_out = is_read ? &conn->is_rjob_out : &conn->is_job_out;
	uint64_t n = 0;

	*err = -EAGAIN; /* taken back unstarted: as if the socket said so */
	if (!*is_out)
		return 0;
	pthread_mutex_lock(&sc->lock);
	while (job->state == SOCK_JOB_RUNNING)
		pthread_cond_wait(&sc->done_cond, &sc->lock);
	/* Queued: taken back unstarted. Done: off the done list. */
	ul_list_del(&job->link);
	if (job->state == SOCK_JOB_DONE) {
		n = job->nob;
		*err = job->err;
	}
	pthread_mutex_unlock(&sc->lock);
	*is_out = false;
	return n;
}
