/*
 * tjob-clock.c — a job's wait and run time up to now (job_queued_at,
 * job_run_time_at): the open period counts, closed periods are not
 * counted twice, a final job is what it was (issue 21: a job pending since
 * its submission read "queued 0 s", a running one "run time 0 s").
 */
#include "job/job.h"
#include "test.h"

#define NEAR(a, b) ((a) - (b) < 1e-9 && (b) - (a) < 1e-9)

static void
test_pending(void)
{
	struct job j;

	job_init(&j, 0, "a", 0, 100);
	job_apply(&j, JOB_EV_SUBMIT, 100, NULL, 0);
	CHECKF(NEAR(job_queued_at(&j, 100), 0), "%g", job_queued_at(&j, 100));
	CHECKF(NEAR(job_queued_at(&j, 930), 830), "%g", job_queued_at(&j, 930));
	CHECKF(NEAR(job_run_time_at(&j, 930), 0), "%g", job_run_time_at(&j, 930));
	/* a clock behind the job's last change adds nothing */
	CHECKF(NEAR(job_queued_at(&j, 50), 0), "%g", job_queued_at(&j, 50));
}

static void
test_running_and_requeued(void)
{
	struct job j;

	job_init(&j, 0, "a", 0, 0);
	job_apply(&j, JOB_EV_SUBMIT, 0, NULL, 0);
	job_apply(&j, JOB_EV_START, 10, NULL, 0);
	/* waited 10 s, closed: the queue time stops growing */
	CHECKF(NEAR(job_queued_at(&j, 70), 10), "%g", job_queued_at(&j, 70));
	CHECKF(NEAR(job_run_time_at(&j, 70), 60), "%g", job_run_time_at(&j, 70));
	/* a live job leaves RUNNING: its run is accounted then */
	job_account(&j, 40, 1.0);
	job_apply(&j, JOB_EV_PREEMPT, 50, NULL, 0);
	job_apply(&j, JOB_EV_REQUEUE, 50, NULL, 0);
	CHECKF(NEAR(job_run_time_at(&j, 80), 40), "%g", job_run_time_at(&j, 80));
	CHECKF(NEAR(job_queued_at(&j, 80), 40), "%g", job_queued_at(&j, 80));
	job_apply(&j, JOB_EV_START, 90, NULL, 0);
	/* the first start stays the first (JCT's early feedback reads it) */
	CHECKF(NEAR(j.first_start, 10), "%g", j.first_start);
	CHECK_INTEQ(j.preemptions, 1);
	CHECK_INTEQ(j.restarts, 1);
	CHECKF(NEAR(job_queued_at(&j, 100), 50), "%g", job_queued_at(&j, 100));
	CHECKF(NEAR(job_run_time_at(&j, 100), 50), "%g", job_run_time_at(&j, 100));
	job_account(&j, 20, 1.0);
	job_apply(&j, JOB_EV_FINISH, 110, NULL, 0);
	/* final: nothing grows */
	CHECKF(NEAR(job_run_time_at(&j, 500), 60), "%g", job_run_time_at(&j, 500));
	CHECKF(NEAR(job_queued_at(&j, 500), 50), "%g", job_queued_at(&j, 500));
}

/* Work done never passes the job's duration, however long it is charged;
   an unknown duration (< 0) is not a cap. */
static void
test_work_capped(void)
{
	struct job j;

	job_init(&j, 0, "a", 0, 0);
	j.duration = 100;
	job_apply(&j, JOB_EV_SUBMIT, 0, NULL, 0);
	job_apply(&j, JOB_EV_START, 0, NULL, 0);
	job_account(&j, 80, 1.0);
	CHECKF(NEAR(j.work_done, 80), "%g", j.work_done);
	job_account(&j, 80, 0.5);
	CHECKF(NEAR(j.work_done, 100), "%g", j.work_done);
	CHECKF(NEAR(j.run_time, 160), "%g", j.run_time);
	j.duration = -1;
	job_account(&j, 50, 1.0);
	CHECKF(NEAR(j.work_done, 150), "%g", j.work_done);
}

static const struct test tests[] = {
	{ "pending", test_pending },
	{ "running-and-requeued", test_running_and_requeued },
	{ "work-capped", test_work_capped },
};

TEST_MAIN(tests)
