"""fisheye.checker: the engines (Z3 and direct), the schedule explorer and its Spark
distribution, and the command line.  Only this package imports z3 or pyspark."""
