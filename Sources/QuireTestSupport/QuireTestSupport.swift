import Quire
