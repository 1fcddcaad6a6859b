
/// `__OP__`: __DOC__
fn __FUNCTION__(req: &Value) -> Result<Value, OpError> {
    let _ = req;
    Err(OpError::not_implemented("__OP__", "__FUNCTION__"))
}
