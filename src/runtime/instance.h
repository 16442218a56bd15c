/*
 * What the daemon needs of an instance beyond the public API: its loop
 * (to run the control server on it) and its node (which the control
 * server reads on the loop thread). Borrowed pointers, valid until
 * ulnet_destroy().
 */
#ifndef UL_RUNTIME_INSTANCE_H
#define UL_RUNTIME_INSTANCE_H

struct ul_log;
struct ul_loop;
struct ul_node;
struct ul_udsp_set;
struct ulnet;

struct ul_loop *ul_instance_loop(struct ulnet *u);
struct ul_node *ul_instance_node(struct ulnet *u);
const struct ul_log *ul_instance_log(struct ulnet *u);
/* The instance's UDSP rule set (NULL before ulnet_create() made it). */
struct ul_udsp_set *ul_instance_udsp(struct ulnet *u);
/* Its socklnd (NULL before ulnet_create() made it). */
struct ul_socklnd;
struct ul_socklnd *ul_instance_socklnd(struct ulnet *u);

#endif /* UL_RUNTIME_INSTANCE_H */
