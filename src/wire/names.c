/* Names of wire values, for logs and the decode tool (wire.md §2). */
#include "wire/wire.h"

const char *ul_wire_msg_type_name(uint32_t type)
{
	switch (type) {
	case UL_WIRE_MSG_ACK:
		return "ACK";
	case UL_WIRE_MSG_PUT:
		return "PUT";
	case UL_WIRE_MSG_GET:
		return "GET";
	case UL_WIRE_MSG_REPLY:
		return "REPLY";
	case UL_WIRE_MSG_HELLO:
		return "HELLO";
	default:
		return NULL;
	}
}

const char *ul_wire_ksock_type_name(uint32_t type)
{
	switch (type) {
	case UL_WIRE_KSOCK_NOOP:
		return "NOOP";
	case UL_WIRE_KSOCK_LNET:
		return "LNET";
	default:
		return NULL;
	}
}

const char *ul_wire_conn_type_name(uint32_t ctype)
{
	switch (ctype) {
	case UL_WIRE_CONN_ANY:
		return "ANY";
	case UL_WIRE_CONN_CONTROL:
		return "CONTROL";
	case UL_WIRE_CONN_BULK_IN:
		return "BULK_IN";
	case UL_WIRE_CONN_BULK_OUT:
		return "BULK_OUT";
	case UL_WIRE_CONN_NONE:
		return "NONE";
	default:
		return NULL;
	}
}

const char *ul_wire_ni_status_name(uint32_t status)
{
	switch (status) {
	case UL_WIRE_NI_STATUS_UP:
		return "up";
	case UL_WIRE_NI_STATUS_DOWN:
		return "down";
	case UL_WIRE_NI_STATUS_INVALID:
		return "invalid";
	default:
		return NULL;
	}
}

uint64_t ul_wire_hdr_md_cookie(const struct ul_wire_lnet_hdr *hdr)
{
	switch (hdr->type) {
	case UL_WIRE_MSG_ACK:
		return hdr->msg.ack.dst_wmd.wh_object_cookie;
	case UL_WIRE_MSG_PUT:
		return hdr->msg.put.ack_wmd.wh_object_cookie;
	case UL_WIRE_MSG_GET:
		return hdr->msg.get.return_wmd.wh_object_cookie;
	case UL_WIRE_MSG_REPLY:
		return hdr->msg.reply.dst_wmd.wh_object_cookie;
	default:
		return 0;
	}
}
