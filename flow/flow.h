/*
 * flow: the robot's flows — running jobs and recording them (runjobs,
 * runstore), a bisection session (bisect), sending a report (report),
 * the service's loop and its configuration (serve) — between the commands
 * (robot/, which parse options, call a flow and print) and what the flows
 * drive (providers/, mail/, web/, lib/). A flow takes a typed request and
 * gives a typed result; it never exits and never reads its own messages
 * back. flow/ never includes robot/; providers/, mail/ and web/ never
 * include flow/ (tests/layers.sh).
 */
#ifndef LKP_FLOW_H
#define LKP_FLOW_H

/* How a flow ended, with the values of the commands' exit codes. */
enum flow_status {
	FLOW_OK = 0,   /* done */
	FLOW_FAIL = 1, /* the work failed (a test, a build, the machine, the store) */
	FLOW_BAD = 2,  /* bad input: options, job files, values */
};

#endif
