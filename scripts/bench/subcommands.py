# SPDX-License-Identifier: BSD-3-Clause
"""The subcommands of a report script (a module of the reports: report.py, levels_report.py,
scale_payoff.py, session_endurance.py, slurm_report.py): the scripts folded into one, each
run as it was, its arguments after the subcommand's name; without one, the script's own
command line.

    if __name__ == "__main__":
        import subcommands
        sys.exit(subcommands.run(main, {"name": main_name}))
"""
import sys


def run(main, subcommands):
    """The exit status of the subcommand named by the first argument (taken off the command
    line, and added to the program's name as its usage shows it), else of `main`."""
    if len(sys.argv) > 1 and sys.argv[1] in subcommands:
        sub = sys.argv.pop(1)
        sys.argv[0] += " " + sub
        return subcommands[sub]()
    return main()
