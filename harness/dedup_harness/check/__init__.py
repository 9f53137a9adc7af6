"""check: a student's own code run through the checks in-process, with grade's report (grade without the sandbox)."""
