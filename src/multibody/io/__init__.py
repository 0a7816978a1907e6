"""Model files from other programs: ADAMS/Solver datasets (``multibody.io.adm``)."""
