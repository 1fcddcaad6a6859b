
def __FUNCTION__(req):
    """`__OP__`: __DOC__"""
    raise not_implemented("__OP__", "__FUNCTION__")

