/* ulnetctl: placeholder entry point, replaced by the command table. */
#include <stdio.h>

int main(void)
{
	fprintf(stderr, "ulnetctl: no commands yet\n");
	return 255;
}
