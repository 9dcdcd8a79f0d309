#!/usr/bin/python3
"""The usual Python alternative: pandas read_csv + groupby of kernel_details.csv (operator summary).

Prints seconds, MB/s and peak RSS. Needs python3-pandas (Debian package; bench only).
Usage: pandas_baseline.py kernel_details.csv
"""
import os
import resource
import sys
import time

import pandas as pd


def main():
    path = sys.argv[1]
    t0 = time.time()
    df = pd.read_csv(path)
    df["Start Time(us)"] = pd.to_numeric(df["Start Time(us)"].astype(str).str.strip(), errors="coerce")
    g = df.groupby(["Name", "Type", "Accelerator Core"])["Duration(us)"]
    summary = g.agg(["count", "sum", "mean", "max"])
    summary["p50"] = g.quantile(0.5)
    summary["p90"] = g.quantile(0.9)
    secs = time.time() - t0
    mb = os.path.getsize(path) / 1048576.0
    rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024.0
    print("pandas: %.2f s, %.1f MB/s, peak RSS %.0f MB, %d rows, %d groups" % (secs, mb / secs, rss, len(df), len(summary)))


if __name__ == "__main__":
    main()
