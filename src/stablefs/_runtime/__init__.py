"""The run-time machinery every layer uses: atomic file writes (:mod:`.io`), run folders
and their ownership (:mod:`.rundir`), stored arrays for resumes (:mod:`.stored`), output
escaping (:mod:`.escape`), memory limits (:mod:`.memory`), worker processes and threads
(:mod:`.processes`, :mod:`.threads`), progress bars (:mod:`.progress`) and lazy package
namespaces (:mod:`.lazy`). Private: nothing here is public API."""
