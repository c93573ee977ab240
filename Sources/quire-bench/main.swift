import Quire
print(QuireLibraries.sqliteVersion)
