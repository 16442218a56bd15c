/*
 * socklnd scheduler threads: the large writes of established connections
 * done off the loop thread (docs/design-notes.md, "Parallel I/O").
 *
 * The loop thread keeps everything socklnd owns: queues, txs, the choice
 * of connection, closes, receives and every upcall. What moves is the
 * system call and its copies, which is where a CPU-bound rail spends its
 * time: when a connection has SOCK_JOB_MIN_BYTES or more to write and
 * there are threads (opts.nscheds), the loop thread fills the connection's
 * job with the iovec it would have written, hands it over and goes on
 * with other connections. Any thread takes any job from one FIFO, writes
 * the whole iovec (waiting in poll() while the socket is full) unless a
 * write fails or the loop thread kicks it, and puts the job on the done
 * list; the loop thread, woken through an eventfd, accounts the bytes as
 * if it had written them itself (sock_conn_job_done()). While it runs,
 * the bytes written so far are published (sock_sched_live()) for the
 * looks at TCP's progress.
 *
 * Ownership: a job's inputs are written by the loop thread before it is
 * queued and its results by the thread that ran it before it is put on
 * the done list, both under the one mutex, so each side sees the other's
 * writes. While a job is out (conn->is_job_out) the memory it points at
 * (the head txs' headers and payload fragments) is not given back: the
 * loop thread writes nothing to that connection, completes none of its
 * queued txs and closes nothing before the job is back; a close takes it
 * back first (sock_sched_wait(): a queued job unstarted, a running one
 * kicked out of its poll() through its thread's eventfd).
 *
 * Why it cannot deadlock: the threads never wait for the loop thread,
 * only for work or for room in their socket, and a kick ends that wait;
 * the loop thread waits only for a job it has kicked; the mutex is held
 * only to move a job between lists (and for the eventfd writes, which
 * never block), never across a call out.
 */
#include <errno.h>
#include <poll.h>
#include <stdatomic.h>
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

struct sock_sched_thread {
	pthread_t id;
	int kick; /* eventfd: give the job back now (a close waits) */
	struct sock_sched *sc;
};

struct sock_job {
	struct ul_list link; /* on sched->todo or sched->done */
	struct sock_conn *conn;
	enum sock_job_state state;	  /* under sched->lock */
	struct sock_sched_thread *thread; /* RUNNING: who runs it */
	/* Inputs, the loop thread's until queued. */
	int fd;
	int cnt;
	struct iovec iov[SOCK_IOV_MAX];
	/*
	 * Results, the running thread's until done; live is nwritten as it
	 * grows, for the loop thread's looks at progress meanwhile.
	 */
	atomic_uint_fast64_t live;
	uint64_t nwritten;
	int err; /* 0, -EAGAIN (socket full) or the write's -errno */
};

struct sock_sched {
	pthread_mutex_t lock;
	pthread_cond_t todo_cond; /* a job queued, or stop */
	pthread_cond_t done_cond; /* a job done: a close may wait for it */
	struct ul_list todo;	  /* struct sock_job.link, FIFO */
	struct ul_list done;	  /* struct sock_job.link */
	bool is_stopping;
	int efd; /* written when done goes non-empty */
	struct ul_io io;
	struct ul_socklnd *s;
	unsigned int nslots;   /* threads[] */
	unsigned int nthreads; /* started */
	struct sock_sched_thread threads[];
};

/*
 * The socket is full: wait until it takes more (true) or the loop thread
 * wants the job back (false).
 */
static bool wait_writable(struct sock_job *job)
{
	struct pollfd pfd[2] = {
		{ .fd = job->fd, .events = POLLOUT },
		{ .fd = job->thread->kick, .events = POLLIN },
	};

	while (poll(pfd, 2, -1) < 0)
		if (errno != EINTR)
			return false;
	/* An error or hang-up shows in the next write. */
	return pfd[1].revents == 0;
}

/*
 * Write the whole iovec, waiting for room in the socket as a blocking
 * write would, unless the loop thread kicks: then the job comes back
 * with -EAGAIN.
 */
static void job_run(struct sock_job *job)
{
	struct iovec *iov = job->iov;
	int cnt = job->cnt;

	job->nwritten = 0;
	job->err = 0;
	while (cnt > 0) {
		struct msghdr msg;
		ssize_t n;
		size_t left;

		memset(&msg, 0, sizeof(msg));
		msg.msg_iov = iov;
		msg.msg_iovlen = (size_t)cnt;
		n = sendmsg(job->fd, &msg, MSG_NOSIGNAL | MSG_DONTWAIT);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			int err = errno == EWOULDBLOCK ? -EAGAIN : -errno;

			if (err == -EAGAIN && wait_writable(job))
				continue;
			job->err = err;
			return;
		}
		job->nwritten += (uint64_t)n;
		atomic_store_explicit(&job->live, job->nwritten,
				      memory_order_relaxed);
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
	struct sock_sched_thread *me = arg;
	struct sock_sched *sc = me->sc;
	uint64_t one = 1, count;

	pthread_mutex_lock(&sc->lock);
	for (;;) {
		struct sock_job *job;
		bool was_empty;

		while (ul_list_empty(&sc->todo) && !sc->is_stopping)
			pthread_cond_wait(&sc->todo_cond, &sc->lock);
		if (ul_list_empty(&sc->todo))
			break;
		job = ul_list_first_entry(&sc->todo, struct sock_job, link);
		ul_list_del(&job->link);
		/* A kick left from an earlier job is not for this one. */
		(void)!read(me->kick, &count, sizeof(count));
		job->state = SOCK_JOB_RUNNING;
		job->thread = me;
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
		job->conn->is_job_out = false;
		sock_conn_job_done(job->conn, job->nwritten, job->err);
	}
	sock_deliver(sc->s);
}

static void sched_free(struct sock_sched *sc)
{
	for (unsigned int i = 0; i < sc->nslots; i++)
		if (sc->threads[i].kick >= 0)
			close(sc->threads[i].kick);
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
		pthread_join(sc->threads[i].id, NULL);
	sc->nthreads = 0;
}

int sock_sched_start(struct ul_socklnd *s)
{
	unsigned int n = s->opts.nscheds;
	struct sock_sched *sc;
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
	sc->nslots = n;
	rc = 0;
	for (unsigned int i = 0; i < n; i++) {
		sc->threads[i].sc = sc;
		sc->threads[i].kick = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
		if (sc->threads[i].kick < 0 && rc == 0)
			rc = -errno;
	}
	sc->efd = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
	if (sc->efd < 0 && rc == 0)
		rc = -errno;
	if (rc < 0) {
		sched_free(sc);
		return rc;
	}
	rc = ul_io_start(s->loop, &sc->io, sc->efd, EPOLLIN, on_done);
	if (rc < 0) {
		sched_free(sc);
		return rc;
	}
	for (; sc->nthreads < n; sc->nthreads++) {
		rc = -pthread_create(&sc->threads[sc->nthreads].id, NULL,
				     sched_main, &sc->threads[sc->nthreads]);
		if (rc < 0)
			break;
	}
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

int sock_sched_post(struct sock_conn *conn, const struct iovec *iov, int cnt)
{
	struct sock_sched *sc = conn->ni->s->sched;
	struct sock_job *job = conn->job;

	if (!job) {
		job = calloc(1, sizeof(*job));
		if (!job)
			return -ENOMEM;
		job->conn = conn;
		ul_list_init(&job->link);
		conn->job = job;
	}
	job->fd = conn->fd;
	job->cnt = cnt;
	atomic_store_explicit(&job->live, 0, memory_order_relaxed);
	memcpy(job->iov, iov, (size_t)cnt * sizeof(iov[0]));
	conn->is_job_out = true;
	pthread_mutex_lock(&sc->lock);
	job->state = SOCK_JOB_QUEUED;
	ul_list_add_tail(&sc->todo, &job->link);
	/* Every time: a second job must not wait for the first's thread. */
	pthread_cond_signal(&sc->todo_cond);
	pthread_mutex_unlock(&sc->lock);
	return 0;
}

uint64_t sock_sched_wait(struct sock_conn *conn)
{
	struct sock_sched *sc = conn->ni->s->sched;
	struct sock_job *job = conn->job;
	uint64_t n = 0, one = 1;

	if (!conn->is_job_out)
		return 0;
	pthread_mutex_lock(&sc->lock);
	if (job->state == SOCK_JOB_RUNNING)
		(void)!write(job->thread->kick, &one, sizeof(one));
	while (job->state == SOCK_JOB_RUNNING)
		pthread_cond_wait(&sc->done_cond, &sc->lock);
	/* Queued: taken back unstarted. Done: off the done list. */
	ul_list_del(&job->link);
	if (job->state == SOCK_JOB_DONE)
		n = job->nwritten;
	pthread_mutex_unlock(&sc->lock);
	conn->is_job_out = false;
	return n;
}

uint64_t sock_sched_live(const struct sock_conn *conn)
{
	if (!conn->is_job_out)
		return 0;
	return atomic_load_explicit(&conn->job->live, memory_order_relaxed);
}
