import ArgumentParser
import Quire
print(QuireLibraries.sqliteVersion)
