#include <stdio.h>
#include <time.h>
int main(void)
{
    struct timespec a, b, t;
    int n = 2000000;
    clock_gettime(CLOCK_MONOTONIC, &a);
    for (int i = 0; i < n; i++)
        clock_gettime(CLOCK_MONOTONIC, &t);
    clock_gettime(CLOCK_MONOTONIC, &b);
    printf("clock_gettime(CLOCK_MONOTONIC): %.1f ns per call\n",
           ((b.tv_sec - a.tv_sec) * 1e9 + (b.tv_nsec - a.tv_nsec)) / n);
    return 0;
}
